import { createMember } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { cardProviderTenant, localStripe } from './card-provider-support.js';
import { signedInMember } from './member-session.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

type Json = Record<string, unknown>;

/**
 * Payment sources on the card provider (document 1 D) through the gateway, billing, FerretDB,
 * NATS and localstripe: the modern customer, setup and save intents, the list and its single
 * default, removal (docs/adr/0120–0122).
 */
describe('payment sources', () => {
  const s = useStack();
  const provider = localStripe();

  /** A signed-in member of a fresh test-mode resource whose test key is stored. */
  async function member(settings: Json = {}) {
    const tenant = await cardProviderTenant(s, settings);
    return signedInMember(s, tenant);
  }
  const customerOf = async (headers: Record<string, string>) => {
    const response = await s.api('/user/payment-provider/cardprovider/customer', { headers });
    expect(response.status).toBe(200);
    return (response.body['payment_customer'] as Json)['customer_id'] as string;
  };
  const save = (headers: Record<string, string>, paymentMethod: unknown) =>
    s.api('/user/payment-provider/cardprovider/save-intents', {
      method: 'POST',
      headers,
      json: { setup_intent: { payment_method: paymentMethod } },
    });
  const sources = (headers: Record<string, string>, query = '') => s.api('/user/payment-sources', { headers, query });
  const defaults = (body: Json) => (body['items'] as Json[]).filter((item) => item['default'] === true);

  describe('GET /user/payment-provider/cardprovider/customer', () => {
    it('creates the member’s customer once, in the resource’s mode, and reads it back after', async () => {
      const m = await member();
      const first = await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        payment_customer: {
          id: expect.any(Number),
          user_id: m.member.id,
          pay_system: 'cardprovider',
          customer_id: expect.stringMatching(/^cus_/),
          mode: 'test',
          created_at: anyIsoDate,
        },
      });
      const again = await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers });
      expect(again.body).toEqual(first.body);
      const created = await provider.customersOf(m.member.email);
      expect(created.map((customer) => customer['id'])).toEqual([(first.body['payment_customer'] as Json)['customer_id']]);
    });

    it('creates one provider customer under parallel first requests (at most once on our side)', async () => {
      const m = await member();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers })),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      const ids = new Set(answers.map((answer) => (answer.body['payment_customer'] as Json)['customer_id']));
      expect(ids.size).toBe(1);
      expect(await provider.customersOf(m.member.email)).toHaveLength(1);
      expect(await s.db('billing').collection('payment_customers').countDocuments({ user_id: m.member.id })).toBe(1);
    });

    it('answers 409 cardprovider_customer_error when the resource has no key for its mode', async () => {
      // Live mode (the default) while only the test key is stored.
      const m = await member({ payments_in_live_mode: true });
      const response = await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        error: 'cardprovider_customer_error',
        error_description: expect.any(String),
        req_guid: anyRequestId,
      });
      expect(await provider.customersOf(m.member.email)).toHaveLength(0);
    });

    it('needs a member: 401 auth_failed without a token', async () => {
      const m = await member();
      const response = await s.api('/user/payment-provider/cardprovider/customer', { headers: { resource: m.headers.resource } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_failed');
    });
  });

  describe('POST /user/payment-provider/cardprovider/setup-intents', () => {
    const setup = (headers: Record<string, string>, json?: unknown) =>
      s.api('/user/payment-provider/cardprovider/setup-intents', { method: 'POST', headers, json });

    it('creates a provider setup intent for the member’s customer and saves nothing', async () => {
      const m = await member();
      const customerId = await customerOf(m.headers);
      const response = await setup(m.headers, { card_customer_id: ` ${customerId} ` });
      expect(response.status).toBe(200);
      expect(response.body['setup_intent']).toMatchObject({
        id: expect.stringMatching(/^seti_/),
        object: 'setup_intent',
        customer: customerId,
        usage: 'off_session',
        client_secret: expect.stringMatching(/^seti_\w+_secret_\w+$/),
      });
      expect((await sources(m.headers)).body).toEqual({ items: [] });
    });

    it('answers each documented error', async () => {
      const m = await member();
      const other = await member();
      const othersCustomer = await customerOf(other.headers);
      const noBody = await setup(m.headers);
      expect(noBody.status).toBe(409);
      expect(noBody.body).toEqual({ error: 'incorrect_data', error_description: expect.any(String), req_guid: anyRequestId });
      for (const body of [{}, { card_customer_id: '  ' }, { card_customer_id: 42 }]) {
        const response = await setup(m.headers, body);
        expect(response.status).toBe(409);
        expect(response.body['error']).toBe('"invalid_customer_id"');
      }
      // Another member's customer, and one that does not exist: not this member's association.
      for (const customerId of [othersCustomer, 'cus_unknown']) {
        const response = await setup(m.headers, { card_customer_id: customerId });
        expect(response.status).toBe(409);
        expect(response.body).toEqual({
          error: 'cardprovider_setup_intent_error',
          error_description: expect.any(String),
          req_guid: anyRequestId,
        });
      }
    });
  });

  describe('POST …/save-intents and GET /user/payment-sources', () => {
    let m: Awaited<ReturnType<typeof member>>;
    let customerId: string;
    beforeAll(async () => {
      m = await member();
      customerId = await customerOf(m.headers);
    });

    it('saves the attached method, makes it the only default and emits user_add_payment_method', async () => {
      const events = collectEvents(s.nats, 'user_add_payment_method');
      const first = (await provider.attachTestCard(customerId))['id'] as string;
      const saved = await save(m.headers, first);
      expect(saved.status).toBe(200);
      expect(saved.body).toEqual({
        payment_method: {
          id: expect.any(Number),
          payment_method_id: first,
          customer_id: customerId,
          payment_customer_id: expect.any(Number),
          card_id: expect.any(Number),
        },
      });
      const event = await eventWhere(events, 'provider_payment_method_id', first);
      expect(event).toMatchObject({
        name: 'user_add_payment_method',
        payload: { user_id: m.member.id, customer_id: customerId, mode: 'test' },
      });

      const second = (await provider.attachTestCard(customerId))['id'] as string;
      const secondSaved = await save(m.headers, second);
      expect(secondSaved.status).toBe(200);
      const list = await sources(m.headers);
      expect(list.status).toBe(200);
      const method = (saved: Json, id: string, isDefault: boolean) => ({
        source_type: 'payment-method',
        default: isDefault,
        pay_system: 'cardprovider',
        customer_id: customerId,
        user_card: {
          id: (saved['payment_method'] as Json)['card_id'],
          card_id: id,
          card_brand: 'visa',
          card_last4: '4242',
          expiration_date: expect.stringMatching(/^\d\d\/\d{4}$/),
        },
        payment_method: {
          id: (saved['payment_method'] as Json)['id'],
          payment_method_id: id,
          mode: 'test',
          type: 'card',
          data: { card_brand: 'visa', card_country: 'FR', card_last4: '4242', expiration_date: expect.stringMatching(/^\d\d\/\d{4}$/) },
        },
      });
      // Saved default first, then descending local ID.
      expect(list.body).toEqual({ items: [method(secondSaved.body, second, true), method(saved.body, first, false)] });

      // Saving the same method again reuses its records.
      const again = await save(m.headers, first);
      expect(again.body).toEqual(saved.body);
      expect((await sources(m.headers)).body['items']).toHaveLength(2);
    });

    it('answers save-intents’ errors', async () => {
      const noBody = await s.api('/user/payment-provider/cardprovider/save-intents', { method: 'POST', headers: m.headers });
      expect(noBody.status).toBe(409);
      expect(noBody.body['error']).toBe('incorrect_data');
      for (const json of [{}, { setup_intent: 'pm_x' }, { setup_intent: { payment_method: ' ' } }]) {
        const response = await s.api('/user/payment-provider/cardprovider/save-intents', { method: 'POST', headers: m.headers, json });
        expect(response.status).toBe(409);
        expect(response.body['error']).toBe('invalid_payment_method');
      }
      const loose = (await provider.detachedTestCard())['id'] as string;
      const noCustomer = await save(m.headers, loose);
      expect(noCustomer.status).toBe(409);
      expect(noCustomer.body).toEqual({
        error: 'cardprovider_save_intent_error',
        error_description: expect.any(String),
        req_guid: anyRequestId,
      });
      const unknown = await save(m.headers, 'pm_does_not_exist');
      expect(unknown.status).toBe(409);
      expect(unknown.body['error']).toBe('cardprovider_save_intent_error');
    });

    it('selects by `pay-system`: another label lists nothing, a number is refused', async () => {
      expect((await sources(m.headers, 'pay-system=otherpay')).body).toEqual({ items: [] });
      expect((await sources(m.headers, 'pay-system=%20cardprovider%20')).body['items']).toHaveLength(2);
      const numeric = await sources(m.headers, 'pay-system=5');
      expect(numeric.status).toBe(409);
      expect(numeric.body['error']).toBe('invalid_pay_system');
    });

    it('shows nothing of another member, nor this member’s sources in another resource', async () => {
      const other = await member();
      expect((await sources(other.headers)).body).toEqual({ items: [] });
      const elsewhere = await cardProviderTenant(s);
      await createMember(s.stack, elsewhere, { email: m.member.email, password: m.member.password });
      const signIn = await s.api('/authorization', {
        headers: { resource: elsewhere.publicKey },
        json: { email: m.member.email, password: m.member.password },
      });
      expect((await sources({ resource: elsewhere.publicKey, token: signIn.body['token'] as string })).body).toEqual({ items: [] });
    });
  });

  describe('PUT /user/payment-sources/{source_type}/{id}/default and DELETE', () => {
    async function memberWithMethods(count: number) {
      const m = await member();
      const customerId = await customerOf(m.headers);
      const saved: Json[] = [];
      for (let index = 0; index < count; index++) {
        const id = (await provider.attachTestCard(customerId))['id'] as string;
        saved.push((await save(m.headers, id)).body['payment_method'] as Json);
      }
      return { m, customerId, saved };
    }

    it('selects the default; the list flags exactly that one', async () => {
      const { m, saved } = await memberWithMethods(2);
      const older = saved[0]!;
      const response = await s.api(`/user/payment-sources/payment-method/${older['id']}/default`, { method: 'PUT', headers: m.headers });
      expect(response.status).toBe(200);
      expect(response.body['item']).toMatchObject({ source_type: 'payment-method', default: true, payment_method: { id: older['id'] } });
      const list = await sources(m.headers);
      expect(defaults(list.body).map((item) => (item['payment_method'] as Json)['id'])).toEqual([older['id']]);
      // The default comes first even though its local ID is lower.
      expect(((list.body['items'] as Json[])[0]!['payment_method'] as Json)['id']).toBe(older['id']);
    });

    it('keeps a single default under parallel selections (FerretDB)', async () => {
      const { m, saved } = await memberWithMethods(3);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          s.api(`/user/payment-sources/payment-method/${saved[index % 3]!['id']}/default`, { method: 'PUT', headers: m.headers }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
      expect(defaults((await sources(m.headers)).body)).toHaveLength(1);
      expect(
        await s
          .db('billing')
          .collection('default_sources')
          .countDocuments({ _id: `${m.member.id}:cardprovider` as never }),
      ).toBe(1);
    });

    it('answers 404 payment_source_not_found for another member’s source, an unknown ID or type', async () => {
      const { saved } = await memberWithMethods(1);
      const other = await member();
      for (const path of [
        `payment-method/${saved[0]!['id']}`,
        'payment-method/999999',
        'payment-method/abc',
        `bank-account/${saved[0]!['id']}`,
      ]) {
        for (const [method, suffix] of [
          ['PUT', '/default'],
          ['DELETE', ''],
        ] as const) {
          const response = await s.api(`/user/payment-sources/${path}${suffix}`, { method, headers: other.headers });
          expect(response.status).toBe(404);
          expect(response.body).toEqual({
            error: 'payment_source_not_found',
            error_description: expect.any(String),
            req_guid: anyRequestId,
          });
        }
      }
    });

    it('removes a method: detached on the provider, gone from the list, its default cleared', async () => {
      const { m, saved } = await memberWithMethods(2);
      const newest = saved[1]!;
      const response = await s.api(`/user/payment-sources/payment-method/${newest['id']}`, { method: 'DELETE', headers: m.headers });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true });
      expect((await provider.paymentMethod(newest['payment_method_id'] as string))['customer']).toBeNull();
      const list = await sources(m.headers);
      expect((list.body['items'] as Json[]).map((item) => (item['payment_method'] as Json)['id'])).toEqual([saved[0]!['id']]);
      expect(defaults(list.body)).toEqual([]);
      const again = await s.api(`/user/payment-sources/payment-method/${newest['id']}`, { method: 'DELETE', headers: m.headers });
      expect(again.status).toBe(404);
    });
  });
});
