import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit, type Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

const ACTIONS = [
  'GET /integrations/external/transaction',
  'POST /integrations/external/subscription',
  'PUT /integrations/external/subscription',
  'DELETE /integrations/external/subscription',
  'PUT /integrations/external/refund',
];

/**
 * External purchase records through a service account (document 2 I; OPERATIONS.md 8, 107–110;
 * docs/adr/0146): a store purchase is a `succeeded` `in-app` transaction that collected nothing,
 * and catalog grants, changes or ends its membership; refund and downgrade follow the resource's
 * configured membership handling.
 */
describe('external purchases', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const DAY = 86_400_000;

  /** A resource with a store-mapped Pricing, a member, and a service account granted the five actions. */
  async function store(settings: Json = {}) {
    const tenant = await createTenant(s.stack, { settings });
    const plan = await kit.plan(tenant, 'app', { title: 'App' });
    const monthly = await kit.pricing(plan.id, 'Monthly', { price: 499, externalSourceIds: 'com.news.monthly' });
    const yearly = await kit.pricing(plan.id, 'Yearly', { price: 4999, period: '1 year', externalSourceIds: 'com.news.yearly' });
    const member = await createMember(s.stack, tenant);
    const { key } = await s.stack.operator.serviceAccounts.createServiceAccount({
      resourceId: tenant.resourceId,
      title: 'App store back end',
      fullAccess: false,
      grants: ACTIONS,
    });
    const call = (method: string, path: string, json?: unknown, query?: string) =>
      s.api(path, { method, headers: { resource: tenant.publicKey, 'service-api-key': key }, json, query });
    return { tenant, plan, monthly, yearly, member, key, call };
  }

  const memberships = (tenant: Tenant, userId: number) =>
    s.db('catalog').collection('memberships').find({ resource_id: tenant.resourceId, user_id: userId }).sort({ _id: 1 }).toArray();

  const external = (id: unknown, userId: number, fields: Json = {}) => ({
    id,
    status: 'succeeded',
    error: null,
    user_id: userId,
    user_card_id: null,
    payment_method_id: null,
    pay_system: 'in-app',
    currency: 'USD',
    amount: 499,
    amount_refunded: 0,
    fee: 0,
    connect_fee: 0,
    processing_fee_payment: 0,
    processing_vat: 0,
    livemode: true,
    ...fields,
  });

  describe('POST /integrations/external/subscription and GET /integrations/external/transaction', () => {
    it('records the purchase (succeeded, in-app, nothing collected) and grants the membership through catalog', async () => {
      const { tenant, monthly, member, call } = await store();
      const events = collectEvents(s.nats, 'membership_created');
      const endDate = new Date(Date.now() + 30 * DAY).toISOString();
      const created = await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'GPA.1234-5678',
        external_source_id: 'com.news.monthly',
        end_date: endDate,
      });
      expect(created.status).toBe(201);
      const [membership] = await memberships(tenant, member.id);
      expect(created.body).toEqual({
        transaction: external(expect.any(Number), member.id),
        subscription: expect.objectContaining({
          id: monthly.id,
          user_subscription_id: membership!['_id'],
          subscription_end_date: endDate,
          autorenew: false,
        }),
      });
      expect(membership).toMatchObject({ pricing_id: monthly.id, active: true, autorenew: false });
      expect((await eventWhere(events, 'membership_id', membership!['_id']))['payload']).toMatchObject({ source: 'external' });

      const read = await call('GET', '/integrations/external/transaction', undefined, 'external_source_id=GPA.1234-5678');
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ transaction: (created.body as Json)['transaction'] });
      // The same report again records nothing new.
      const again = await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'GPA.1234-5678',
        external_source_id: 'com.news.monthly',
      });
      expect([again.status, again.body['transaction']]).toEqual([200, created.body['transaction']]);
      expect(await memberships(tenant, member.id)).toHaveLength(1);
      // The member sees it in their own list, as in-app.
      const token = (await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: member })).body['token'] as string;
      const mine = await s.api('/user/transactions', { headers: { resource: tenant.publicKey, token }, query: 'page=1' });
      expect(mine.body['items']).toEqual([
        expect.objectContaining({
          id: (created.body['transaction'] as Json)['id'],
          status: 'succeeded',
          pay_system: 'in-app',
          payment_source: null,
          created_at: anyIsoDate,
        }),
      ]);
    });

    it('takes a Pricing ID, the store’s amount and currency, and autorenew', async () => {
      const { yearly, member, call } = await store();
      const response = await call('POST', '/integrations/external/subscription', {
        user_id: String(member.id),
        transaction_id: 'ios-1',
        subscription_id: yearly.id,
        amount: 5499,
        currency: 'eur',
        autorenew: true,
      });
      expect(response.status).toBe(201);
      expect(response.body['transaction']).toEqual(external(expect.any(Number), member.id, { amount: 5499, currency: 'EUR' }));
      expect(response.body['subscription']).toMatchObject({ id: yearly.id, autorenew: true, subscription_end_date: expect.any(String) });
    });

    it('answers each documented error', async () => {
      const { tenant, member, call, key } = await store();
      const noBody = await call('POST', '/integrations/external/subscription');
      expect([noBody.status, noBody.body]).toEqual([406, error('incorrect_data')]);
      const fields = await call('POST', '/integrations/external/subscription', {
        user_id: 'x',
        end_date: 'soon',
        autorenew: 'yes',
        amount: -1,
        currency: 'dollars',
      });
      expect([fields.status, fields.body]).toEqual([
        409,
        {
          error: true,
          error_fields: {
            user_id: expect.any(String),
            transaction_id: expect.any(String),
            external_source_id: expect.any(String),
            amount: expect.any(String),
            currency: expect.any(String),
            end_date: expect.any(String),
            autorenew: expect.any(String),
          },
          req_guid: anyRequestId,
        },
      ]);
      const unknownUser = await call('POST', '/integrations/external/subscription', {
        user_id: 99999999,
        transaction_id: 't-1',
        external_source_id: 'com.news.monthly',
      });
      expect([unknownUser.status, unknownUser.body]).toEqual([404, error('user_not_found')]);
      const stranger = await createMember(s.stack, await createTenant(s.stack));
      const notHere = await call('POST', '/integrations/external/subscription', {
        user_id: stranger.id,
        transaction_id: 't-2',
        external_source_id: 'com.news.monthly',
      });
      expect([notHere.status, notHere.body]).toEqual([404, error('user_not_found')]);
      const unmapped = await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 't-3',
        external_source_id: 'com.other',
      });
      expect(unmapped.status).toBe(404);
      expect(unmapped.body['error']).toBe('subscription_not_found');
      await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 't-4',
        external_source_id: 'com.news.monthly',
      });
      const other = await createMember(s.stack, tenant);
      const taken = await call('POST', '/integrations/external/subscription', {
        user_id: other.id,
        transaction_id: 't-4',
        external_source_id: 'com.news.monthly',
      });
      expect([taken.status, taken.body]).toEqual([409, error('external_transaction_exists')]);
      const missing = await call('GET', '/integrations/external/transaction', undefined, 'external_source_id=nope');
      expect([missing.status, missing.body]).toEqual([404, error('get_transaction_error')]);
      const blank = await call('GET', '/integrations/external/transaction');
      expect([blank.status, blank.body]).toEqual([404, error('get_transaction_error')]);
      // A member token is not a service account; a key without the grant is refused.
      const token = (await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: member })).body['token'] as string;
      const asMember = await s.api('/integrations/external/transaction', {
        headers: { resource: tenant.publicKey, token },
        query: 'external_source_id=t-4',
      });
      expect(asMember.status).toBe(403);
      const { key: narrow } = await s.stack.operator.serviceAccounts.createServiceAccount({
        resourceId: tenant.resourceId,
        title: 'Reader',
        fullAccess: false,
        grants: ['GET /integrations/external/transaction'],
      });
      const refused = await s.api('/integrations/external/subscription', {
        method: 'POST',
        headers: { resource: tenant.publicKey, 'service-api-key': narrow },
        json: { user_id: member.id, transaction_id: 't-5', external_source_id: 'com.news.monthly' },
      });
      expect([refused.status, refused.body['error']]).toEqual([403, 'access']);
      void key;
    });
  });

  it('finds no transaction by a store ID with a NUL, and refuses to store one (PostgreSQL text holds no NUL)', async () => {
    const { member, call } = await store();
    await call('POST', '/integrations/external/subscription', {
      user_id: member.id,
      transaction_id: 't-1',
      external_source_id: 'com.news.monthly',
    });
    const nul = 't-1\u0000';
    const read = await call('GET', '/integrations/external/transaction', undefined, `external_source_id=${encodeURIComponent(nul)}`);
    expect([read.status, read.body]).toEqual([404, error('get_transaction_error')]);
    for (const method of ['PUT', 'DELETE']) {
      const lookup = await call(method, '/integrations/external/subscription', { user_id: member.id, transaction_id: nul });
      expect([lookup.status, lookup.body]).toEqual([404, error('get_transaction_error')]);
    }
    const refundOfNone = await call('PUT', '/integrations/external/refund', { user_id: member.id, transaction_id: nul });
    expect([refundOfNone.status, refundOfNone.body]).toEqual([404, error('get_transaction_error')]);
    const fieldError = (field: string) => ({
      error: true,
      error_fields: { [field]: `${field} must not contain a NUL character` },
      req_guid: anyRequestId,
    });
    const recorded = await call('POST', '/integrations/external/subscription', {
      user_id: member.id,
      transaction_id: nul,
      external_source_id: 'com.news.monthly',
    });
    expect([recorded.status, recorded.body]).toEqual([409, fieldError('transaction_id')]);
    for (const field of ['refund_id', 'reason']) {
      const refund = await call('PUT', '/integrations/external/refund', { user_id: member.id, transaction_id: 't-1', [field]: 'r\u0000' });
      expect([refund.status, refund.body]).toEqual([409, fieldError(field)]);
    }
    // Nothing was refunded.
    const after = await call('GET', '/integrations/external/transaction', undefined, 'external_source_id=t-1');
    expect(after.body['transaction']).toMatchObject({ status: 'succeeded', amount_refunded: 0 });
  });

  describe('PUT /integrations/external/subscription', () => {
    it('moves the purchase to another Pricing (the old membership ends) or changes its end date and autorenew', async () => {
      const { tenant, yearly, member, call } = await store();
      await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'sub-1',
        external_source_id: 'com.news.monthly',
      });
      const later = new Date(Date.now() + 90 * DAY).toISOString();
      const terms = await call('PUT', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'sub-1',
        end_date: later,
        autorenew: true,
      });
      expect(terms.status).toBe(200);
      expect(terms.body['subscription']).toMatchObject({ subscription_end_date: later, autorenew: true });
      const moved = await call('PUT', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'sub-1',
        external_source_id: 'com.news.yearly',
      });
      expect(moved.status).toBe(200);
      expect(moved.body['subscription']).toMatchObject({ id: yearly.id });
      const rows = await memberships(tenant, member.id);
      expect(rows.map((row) => [row['pricing_id'], row['active']])).toEqual([
        [rows[0]!['pricing_id'], false],
        [yearly.id, true],
      ]);
      const history = await s.db('catalog').collection('membership_history').find({ membership_id: rows[0]!['_id'] }).toArray();
      expect(history.map((row) => row['action'])).toEqual(['created', 'changed', 'changed']);
      const unknown = await call('PUT', '/integrations/external/subscription', { user_id: member.id, transaction_id: 'nope' });
      expect([unknown.status, unknown.body]).toEqual([404, error('get_transaction_error')]);
      const noBody = await call('PUT', '/integrations/external/subscription');
      expect([noBody.status, noBody.body]).toEqual([406, error('incorrect_data')]);
    });
  });

  describe('DELETE /integrations/external/subscription and PUT /integrations/external/refund', () => {
    let fallback: {
      tenant: Tenant;
      call: Awaited<ReturnType<typeof store>>['call'];
      member: { id: number };
      freeId: number;
      yearlyId: number;
    };
    beforeAll(async () => {
      const arranged = await store();
      const free = await kit.pricing(arranged.plan.id, 'Free', { price: 0 });
      await s.stack.operator.accounts.upsertResource({
        publicKey: arranged.tenant.publicKey,
        title: 'Store',
        partnerId: arranged.tenant.partnerId,
        settings: { default_subscription_id: free.id },
        allowedOrigins: [],
      });
      fallback = { tenant: arranged.tenant, call: arranged.call, member: arranged.member, freeId: free.id, yearlyId: arranged.yearly.id };
    });

    it('downgrades at once and gives the default Pricing when the resource does not delay downgrades', async () => {
      const { tenant, call, member, freeId } = fallback;
      await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'down-1',
        external_source_id: 'com.news.monthly',
      });
      const response = await call('DELETE', '/integrations/external/subscription', { user_id: member.id, transaction_id: 'down-1' });
      expect(response.status).toBe(200);
      expect(response.body['default_subscription']).toMatchObject({ id: freeId });
      const rows = await memberships(tenant, member.id);
      expect(rows.filter((row) => row['active']).map((row) => row['pricing_id'])).toEqual([freeId]);
      const ended = rows.find((row) => row['pricing_id'] !== freeId)!;
      const history = await s.db('catalog').collection('membership_history').find({ membership_id: ended['_id'] }).toArray();
      expect(history.map((row) => row['action'])).toEqual(['created', 'downgraded']);
    });

    it('lets the membership run to its end, renewing no more, when the resource delays downgrades', async () => {
      const { tenant, member, call } = await store({ delay_downgrade: true });
      await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'late-1',
        external_source_id: 'com.news.monthly',
        autorenew: true,
      });
      const response = await call('DELETE', '/integrations/external/subscription', { user_id: member.id, transaction_id: 'late-1' });
      expect(response.status).toBe(200);
      expect(response.body['subscription']).toMatchObject({ autorenew: false });
      expect(await memberships(tenant, member.id)).toEqual([expect.objectContaining({ active: true, autorenew: false })]);
    });

    it('records refunds once per refund ID; a full refund applies the configured handling', async () => {
      const { tenant, call, member, yearlyId } = fallback;
      await call('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'refund-1',
        external_source_id: 'com.news.yearly',
      });
      const partial = await call('PUT', '/integrations/external/refund', {
        user_id: member.id,
        transaction_id: 'refund-1',
        amount: 1000,
        refund_id: 'r-1',
      });
      expect(partial.status).toBe(200);
      expect(partial.body['transaction']).toMatchObject({ status: 'succeeded', amount: 4999, amount_refunded: 1000 });
      const again = await call('PUT', '/integrations/external/refund', {
        user_id: member.id,
        transaction_id: 'refund-1',
        amount: 1000,
        refund_id: 'r-1',
      });
      expect(again.body['transaction']).toMatchObject({ amount_refunded: 1000 });
      const tooMuch = await call('PUT', '/integrations/external/refund', {
        user_id: member.id,
        transaction_id: 'refund-1',
        amount: 9999,
        refund_id: 'r-2',
      });
      expect([tooMuch.status, tooMuch.body]).toEqual([409, error('invalid_amount')]);
      const rest = await call('PUT', '/integrations/external/refund', { user_id: member.id, transaction_id: 'refund-1', refund_id: 'r-3' });
      expect(rest.body['transaction']).toMatchObject({ status: 'refunded', amount_refunded: 4999 });
      const yearly = (await memberships(tenant, member.id)).find((row) => row['pricing_id'] === yearlyId);
      expect(yearly).toMatchObject({ active: false });
      const history = await s.db('catalog').collection('membership_history').find({ membership_id: yearly!['_id'] }).toArray();
      expect(history.map((row) => row['action'])).toEqual(['created', 'refunded']);
      const unknown = await call('PUT', '/integrations/external/refund', { user_id: member.id, transaction_id: 'nope' });
      expect([unknown.status, unknown.body]).toEqual([404, error('get_transaction_error')]);
      const noBody = await call('PUT', '/integrations/external/refund');
      expect([noBody.status, noBody.body]).toEqual([406, error('incorrect_data')]);
    });
  });
});
