import { describe, expect, it } from 'vitest';
import { cardProviderTenant, localStripe } from './card-provider-support.js';
import { signedInMember } from './member-session.js';
import { anyRequestId, useStack } from './support.js';

type Json = Record<string, unknown>;

/** POST /user/card and POST /user/cardprovider/customer/import (document 1 D, named); docs/adr/0124. */
describe('legacy cards and imported customers', () => {
  const s = useStack();
  const provider = localStripe();
  const member = async (settings: Json = {}) => signedInMember(s, await cardProviderTenant(s, settings));
  const token = async () => (await provider.cardToken())['id'] as string;
  const legacyCustomer = async (m: { headers: Record<string, string> }) =>
    (await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: await token() } })).body;

  describe('POST /user/card', () => {
    it('adds a card from a token to the newest legacy customer (201), once per token', async () => {
      const m = await member();
      const older = await legacyCustomer(m);
      const newer = await legacyCustomer(m);
      const tok = await token();
      const added = await s.api('/user/card', { method: 'POST', headers: m.headers, json: { token: tok } });
      expect(added.status).toBe(201);
      expect(added.body).toEqual({
        id: expect.any(Number),
        card_id: expect.stringMatching(/^card_/),
        card_brand: expect.any(String),
        card_country: expect.any(String),
        card_last4: '4242',
        expiration_date: '12/2034',
        customer_id: newer['customer_id'],
        pay_system: 'cardprovider',
        default: false,
      });
      // A retry with the same token: the same card, and no second card on the provider.
      const again = await s.api('/user/card', { method: 'POST', headers: m.headers, json: { token: tok } });
      expect(again.body).toEqual(added.body);
      expect(await provider.cardsOf(newer['customer_id'] as string)).toHaveLength(2);
      const cards = await s.api('/user/cards', { headers: m.headers });
      expect((cards.body['items'] as Json[]).map((card) => card['id'])).toContain(added.body['id']);

      // An explicit `customer_id` (a local ID, number or digits) picks the older customer.
      const toOlder = await s.api('/user/card', {
        method: 'POST',
        headers: m.headers,
        json: { token: await token(), customer_id: String(older['id']) },
      });
      expect(toOlder.status).toBe(201);
      expect(toOlder.body['customer_id']).toBe(older['customer_id']);
    });

    it('answers 406 incorrect_data, incorrect_token and incorrect_retrieve_token, 404 customer_not_found', async () => {
      const m = await member();
      const add = (json?: unknown) => s.api('/user/card', { method: 'POST', headers: m.headers, ...(json === undefined ? {} : { json }) });
      const expectError = (response: { status: number; body: Json }, status: number, error: string) => {
        expect(response.status).toBe(status);
        expect(response.body).toEqual({ error, error_description: expect.any(String), req_guid: anyRequestId });
      };
      expectError(await add(), 406, 'incorrect_data');
      expectError(await add({ token: ' ' }), 406, 'incorrect_token');
      // No legacy customer yet.
      expectError(await add({ token: await token() }), 404, 'customer_not_found');
      const own = await legacyCustomer(m);
      expectError(await add({ token: 'tok_unknown' }), 406, 'incorrect_retrieve_token');
      expectError(await add({ token: await token(), customer_id: 'abc' }), 404, 'customer_not_found');
      // Another member's customer is not found, and gets no card.
      const other = await member();
      const theirs = await legacyCustomer(other);
      expectError(await add({ token: await token(), customer_id: theirs['id'] }), 404, 'customer_not_found');
      expect(await provider.cardsOf(theirs['customer_id'] as string)).toHaveLength(1);
      expect(await provider.cardsOf(own['customer_id'] as string)).toHaveLength(1);
    });

    it('counts as a card-attachment attempt: beyond the limit 429 card_attach_attempts_exceeded, no card added', async () => {
      const m = await member({ card_attach_attempts_limit: 2 });
      const customer = await legacyCustomer(m);
      expect((await s.api('/user/card/attempt-attach', { method: 'POST', headers: m.headers })).status).toBe(200);
      expect((await s.api('/user/card', { method: 'POST', headers: m.headers, json: { token: await token() } })).status).toBe(201);
      const refused = await s.api('/user/card', { method: 'POST', headers: m.headers, json: { token: await token() } });
      expect(refused.status).toBe(429);
      expect(refused.body['error']).toBe('card_attach_attempts_exceeded');
      expect(await provider.cardsOf(customer['customer_id'] as string)).toHaveLength(2);
    });
  });

  describe('POST /user/cardprovider/customer/import', () => {
    const importing = (m: { headers: Record<string, string> }, json?: unknown) =>
      s.api('/user/cardprovider/customer/import', { method: 'POST', headers: m.headers, ...(json === undefined ? {} : { json }) });

    it('records the member’s own provider customer with its cards (201), then answers it as recorded (200)', async () => {
      const m = await member();
      const customer = await provider.customerWithCard(m.member.email);
      const imported = await importing(m, { customer_id: customer['id'] });
      expect(imported.status).toBe(201);
      expect(imported.body).toEqual({
        id: expect.any(Number),
        pay_system: 'cardprovider',
        customer_id: customer['id'],
        cards: [{ id: expect.any(Number), card_last4: '4242' }],
      });
      const again = await importing(m, { customer_id: customer['id'] });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(imported.body);
      expect((await s.api('/user/cardprovider/customers', { headers: m.headers })).body).toEqual({ items: [imported.body] });
    });

    it('answers the customer read-or-create already made (200), without a second record', async () => {
      const m = await member();
      const modern = (await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers })).body['payment_customer'] as Json;
      const imported = await importing(m, { customer_id: modern['customer_id'] });
      expect(imported.status).toBe(200);
      expect(imported.body['id']).toBe(modern['id']);
    });

    it('without customer_id creates one card-less customer for the member, once', async () => {
      const m = await member();
      const created = await importing(m, {});
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        pay_system: 'cardprovider',
        customer_id: expect.stringMatching(/^cus_/),
        cards: [],
      });
      const again = await importing(m, {});
      expect(again.status).toBe(200);
      expect(again.body).toEqual(created.body);
      expect(await provider.customersOf(m.member.email)).toHaveLength(1);
    });

    it('refuses another person’s or an unknown customer (404), a malformed ID (406) and a body that is not JSON (406)', async () => {
      const m = await member();
      const stranger = await member();
      const theirs = await provider.customerWithCard(stranger.member.email);
      for (const customerId of [theirs['id'], 'cus_doesnotexist']) {
        const response = await importing(m, { customer_id: customerId });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ error: 'customer_not_found', error_description: expect.any(String), req_guid: anyRequestId });
      }
      expect((await s.api('/user/cardprovider/customers', { headers: m.headers })).body).toEqual({ items: [] });
      for (const customerId of ['abc', 42, { id: 'cus_x' }]) {
        const response = await importing(m, { customer_id: customerId });
        expect(response.status).toBe(406);
        expect(response.body['error']).toBe('incorrect_customer_id');
      }
      const noBody = await importing(m);
      expect(noBody.status).toBe(406);
      expect(noBody.body['error']).toBe('incorrect_data');
    });
  });
});
