import { randomBytes } from 'node:crypto';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingKit, CARDS } from './billing-support.js';
import { connections } from './card-provider-support.js';
import type { Json } from './catalog-support.js';
import { anyRequestId, useStack } from './support.js';

/**
 * Document 1 E's reads that billing owns (docs/adr/0141): GET /user/resources (resources with a
 * transaction, whatever the header resource) and the grouped /user/resources/transactions and
 * /user/resources/purchases (the partner rule; filter parsed, not applied; the empty shape).
 */
describe('transactions and purchases by resource', () => {
  const s = useStack();
  const { kit, item, pay, provider } = billingKit(s);

  /** A test-mode resource of `partnerId` (a new partner when absent) with its key and a Pricing. */
  async function storefront(title: string, partnerId?: number) {
    const key = `res-${randomBytes(4).toString('hex')}`;
    const partner = partnerId ?? (await s.stack.operator.accounts.createPartner({ title: `Partner ${key}` })).id;
    const resource = await s.stack.operator.accounts.upsertResource({
      publicKey: key,
      title,
      host: `${key}.example.test`,
      partnerId: partner,
      settings: { payments_in_live_mode: false },
      allowedOrigins: [],
    });
    const client = connections(s);
    await client.setSecretKey({ resourceId: resource.id, mode: 'test', secretKey: FAKE_PROVIDER_KEY });
    client.close();
    const tenant: Tenant = { resourceId: resource.id, publicKey: key, partnerId: partner };
    const plan = await kit.plan(tenant, 'digital', { title: 'Digital' });
    const pricing = await kit.pricing(plan.id, `Monthly ${title}`, { price: 500 });
    return { tenant, pricing };
  }

  const credentials = { email: `buyer-${randomBytes(4).toString('hex')}@example.test`, password: 'Pw-resource-reads-1' };
  /** The member signed in at `tenant` with a saved `number` card there. */
  async function headersAt(tenant: Tenant, number: string = CARDS.visa) {
    await createMember(s.stack, tenant, credentials);
    const signIn = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: credentials });
    const headers = { resource: tenant.publicKey, token: signIn.body['token'] as string };
    const customer = await s.api('/user/payment-provider/cardprovider/customer', { headers });
    const card = await provider.attachCard((customer.body['payment_customer'] as Json)['customer_id'] as string, number);
    await s.api('/user/payment-provider/cardprovider/save-intents', {
      method: 'POST',
      headers,
      json: { setup_intent: { payment_method: card['id'] } },
    });
    return headers;
  }

  let selected: Awaited<ReturnType<typeof storefront>>;
  let second: Awaited<ReturnType<typeof storefront>>;
  let elsewhere: Awaited<ReturnType<typeof storefront>>;
  let headers: Record<string, string>;
  const bought: Record<string, Json> = {};

  beforeAll(async () => {
    selected = await storefront('Alpha daily');
    second = await storefront('Beta weekly', selected.tenant.partnerId);
    const unrelated = await storefront('Gamma monthly', selected.tenant.partnerId);
    elsewhere = await storefront('Delta news');
    headers = await headersAt(selected.tenant);
    bought['selected'] = (await pay(headers, [item(selected.pricing.id)])).body['transaction'] as Json;
    const secondHeaders = await headersAt(second.tenant, CARDS.declined);
    expect((await pay(secondHeaders, [item(second.pricing.id)])).status).toBe(409);
    bought['secondFailed'] = (await s.api('/user/transactions', { headers: secondHeaders, query: 'page=1' })).body['items'] as Json;
    const elsewhereHeaders = await headersAt(elsewhere.tenant);
    bought['elsewhere'] = (await pay(elsewhereHeaders, [item(elsewhere.pricing.id)])).body['transaction'] as Json;
    // A resource of the partner where the member has no relationship: never listed.
    void unrelated;
  });

  const resourceItem = (tenant: Tenant, title: string) => ({ title, key: tenant.publicKey, host: `${tenant.publicKey}.example.test` });

  describe('GET /user/resources', () => {
    it('lists the resources where the member has a transaction, whatever the header resource', async () => {
      const response = await s.api('/user/resources', { headers, query: 'page=1' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          resourceItem(selected.tenant, 'Alpha daily'),
          resourceItem(second.tenant, 'Beta weekly'),
          resourceItem(elsewhere.tenant, 'Delta news'),
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 3, limit: 10 },
      });
      const filtered = await s.api('/user/resources', { headers, query: 'filter[title]=DELTA' });
      expect(filtered.body['items']).toEqual([resourceItem(elsewhere.tenant, 'Delta news')]);
      const paged = await s.api('/user/resources', { headers, query: 'page=2&limit=2' });
      expect(paged.body).toEqual({
        items: [resourceItem(elsewhere.tenant, 'Delta news')],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 3, limit: 2 },
      });
    });

    it('refuses an unknown filter field (409) and lists nothing for a member without transactions', async () => {
      const bad = await s.api('/user/resources', { headers, query: 'filter[nope]=1' });
      expect([bad.status, bad.body]).toEqual([
        409,
        { error: true, error_fields: { 'filter.nope': expect.any(String) }, req_guid: anyRequestId },
      ]);
      const fresh = await createMember(s.stack, selected.tenant);
      const token = (await s.api('/authorization', { headers: { resource: selected.tenant.publicKey }, json: fresh })).body[
        'token'
      ] as string;
      const empty = await s.api('/user/resources', { headers: { resource: selected.tenant.publicKey, token }, query: 'page=1' });
      expect(empty.body).toEqual({ items: [], paginator: { current_page: 1, page: 1, total_pages: 0, total_items: 0, limit: 10 } });
    });
  });

  describe('GET /user/resources/transactions and /purchases', () => {
    it('groups the member’s transactions by the partner’s resources where the member belongs', async () => {
      const response = await s.api('/user/resources/transactions', { headers, query: 'page=1' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          {
            resources: [
              { ...resourceItem(selected.tenant, 'Alpha daily'), transactions: [bought['selected']] },
              { ...resourceItem(second.tenant, 'Beta weekly'), transactions: bought['secondFailed'] },
            ],
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 2, limit: 10 },
      });
      // The filter is parsed and validated, never applied.
      expect((await s.api('/user/resources/transactions', { headers, query: 'filter[title]=zzz' })).body).toEqual(response.body);
      const bad = await s.api('/user/resources/transactions', { headers, query: 'filter=%7Bbad' });
      expect(bad.status).toBe(409);
      const paged = await s.api('/user/resources/transactions', { headers, query: 'page=2&limit=1' });
      expect(paged.body).toEqual({
        items: [{ resources: [{ ...resourceItem(second.tenant, 'Beta weekly'), transactions: bought['secondFailed'] }] }],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 2, limit: 1 },
      });
    });

    it('lists purchases of transactions that took money only', async () => {
      const response = await s.api('/user/resources/purchases', { headers, query: 'page=1' });
      expect(response.status).toBe(200);
      const purchase = (bought['selected']!['purchases'] as Json[])[0]!;
      expect(response.body).toEqual({
        items: [
          {
            resources: [
              {
                ...resourceItem(selected.tenant, 'Alpha daily'),
                purchases: [
                  {
                    id: purchase['id'],
                    item_type: 'subscription',
                    item_id: selected.pricing.id,
                    title: 'Digital: Monthly Alpha daily',
                    amount: 500,
                    currency: 'USD',
                    transaction_id: bought['selected']!['id'],
                    created_at: bought['selected']!['created_at'],
                  },
                ],
              },
              { ...resourceItem(second.tenant, 'Beta weekly'), purchases: [] },
            ],
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 2, limit: 10 },
      });
    });

    it('answers {items: [{resources: []}]} when no resource qualifies', async () => {
      const lone = await createTenant(s.stack);
      const fresh = await createMember(s.stack, lone);
      const token = (await s.api('/authorization', { headers: { resource: lone.publicKey }, json: fresh })).body['token'] as string;
      await s
        .db('accounts')
        .collection('partners')
        .updateOne({ _id: lone.partnerId as never }, { $set: { active: false } });
      for (const path of ['/user/resources/transactions', '/user/resources/purchases']) {
        const response = await s.api(path, { headers: { resource: lone.publicKey, token }, query: 'page=1' });
        expect([response.status, response.body]).toEqual([200, { items: [{ resources: [] }] }]);
      }
      const guest = await s.api('/user/resources/transactions', { headers: { resource: lone.publicKey } });
      expect([guest.status, guest.body]).toEqual([
        401,
        { error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId },
      ]);
    });
  });
});
