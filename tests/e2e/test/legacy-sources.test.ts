import { createMember } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { cardProviderTenant, localStripe } from './card-provider-support.js';
import { signedInMember } from './member-session.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

type Json = Record<string, unknown>;

/** Legacy card-provider flows (document 1 D) through the gateway, billing and localstripe; docs/adr/0124. */
describe('legacy card-provider customers and confirmed methods', () => {
  const s = useStack();
  const provider = localStripe();
  const member = async (settings: Json = {}) => signedInMember(s, await cardProviderTenant(s, settings));
  const token = async () => (await provider.cardToken())['id'] as string;

  for (const [path, field] of [
    ['/user/cardprovider/customer', 'customer_id'],
    ['/user/cardprovider/token', 'token'],
  ] as const) {
    describe(`POST ${path}`, () => {
      it('creates a provider customer from the token, imports its card, and lists it (201)', async () => {
        const m = await member();
        const tok = await token();
        const response = await s.api(path, { method: 'POST', headers: m.headers, json: { [field]: tok } });
        expect(response.status).toBe(201);
        expect(response.body).toEqual({
          id: expect.any(Number),
          pay_system: 'cardprovider',
          customer_id: expect.stringMatching(/^cus_/),
          cards: [{ id: expect.any(Number), card_last4: '4242' }],
        });
        // The same token again (a retry): the same customer, no second provider object.
        const again = await s.api(path, { method: 'POST', headers: m.headers, json: { [field]: tok } });
        expect(again.body).toEqual(response.body);
        expect(await provider.customersOf(m.member.email)).toHaveLength(1);
        const list = await s.api('/user/payment-sources', { headers: m.headers });
        expect(list.body['items']).toEqual([
          {
            source_type: 'user-card',
            default: false,
            pay_system: 'cardprovider',
            customer_id: response.body['customer_id'],
            user_card: expect.objectContaining({ id: (response.body['cards'] as Json[])[0]!['id'], card_last4: '4242' }),
            payment_method: null,
          },
        ]);
      });

      it('answers 406 incorrect_data without a JSON object, and its own code without the token', async () => {
        const m = await member();
        const noBody = await s.api(path, { method: 'POST', headers: m.headers });
        expect(noBody.status).toBe(406);
        expect(noBody.body).toEqual({ error: 'incorrect_data', error_description: expect.any(String), req_guid: anyRequestId });
        const missing = await s.api(path, { method: 'POST', headers: m.headers, json: { [field]: ' ' } });
        expect(missing.status).toBe(406);
        expect(missing.body['error']).toBe(field === 'token' ? 'incorrect_token' : 'incorrect_customer_id');
      });
    });
  }

  it('POST /user/cardprovider/customer answers 500 incorrect_customer for an existing customer ID', async () => {
    const m = await member();
    const existing = (await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers })).body['payment_customer'] as Json;
    const response = await s.api('/user/cardprovider/customer', {
      method: 'POST',
      headers: m.headers,
      json: { customer_id: existing['customer_id'] },
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'incorrect_customer', error_description: expect.any(String), req_guid: anyRequestId });
  });

  it('POST /user/cardprovider/token answers 406 incorrect_retrieve_token for an unknown token', async () => {
    const m = await member();
    const response = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: 'tok_unknown' } });
    expect(response.status).toBe(406);
    expect(response.body['error']).toBe('incorrect_retrieve_token');
  });

  it('POST /user/card/{id}/default selects a legacy card; DELETE /user/card/{id} removes it', async () => {
    const m = await member();
    const created = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: await token() } });
    const cardId = (created.body['cards'] as Json[])[0]!['id'] as number;
    const selected = await s.api(`/user/card/${cardId}/default`, { method: 'POST', headers: m.headers });
    expect(selected.status).toBe(200);
    expect(selected.body['item']).toMatchObject({ source_type: 'user-card', default: true, user_card: { id: cardId } });
    const other = await member();
    for (const [method, path] of [
      ['POST', `/user/card/${cardId}/default`],
      ['DELETE', `/user/card/${cardId}`],
      ['DELETE', '/user/card/abc'],
    ] as const) {
      const response = await s.api(path, { method, headers: other.headers });
      expect(response.status).toBe(404);
      expect(response.body['error']).toBe('payment_source_not_found');
    }
    const removed = await s.api(`/user/card/${cardId}`, { method: 'DELETE', headers: m.headers });
    expect(removed.body).toEqual({ result: true });
    expect((await s.api('/user/payment-sources', { headers: m.headers })).body).toEqual({ items: [] });
  });

  it('lists cards (paginated) and customers; attaches a customer to another resource; deletes its local record', async () => {
    const m = await member();
    const first = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: await token() } });
    const second = await s.api('/user/cardprovider/customer', { method: 'POST', headers: m.headers, json: { customer_id: await token() } });
    const cardOf = (created: Json) => (created['cards'] as Json[])[0]!['id'];
    const cards = await s.api('/user/cards', { headers: m.headers, query: 'page=1&limit=1' });
    expect(cards.status).toBe(200);
    expect(cards.body).toEqual({
      items: [
        {
          id: cardOf(second.body),
          card_id: expect.stringMatching(/^card_/),
          card_brand: expect.any(String),
          card_country: expect.any(String),
          card_last4: '4242',
          expiration_date: '12/2034',
          customer_id: second.body['customer_id'],
          pay_system: 'cardprovider',
          default: false,
        },
      ],
      paginator: { current_page: 1, page: 1, total_pages: 2, total_items: 2, limit: 1 },
    });
    const customers = await s.api('/user/cardprovider/customers', { headers: m.headers });
    expect(customers.body).toEqual({ items: [second.body, first.body] });

    // Another member cannot attach it; the same member in a second resource can.
    const elsewhere = await cardProviderTenant(s);
    const stranger = await signedInMember(s, elsewhere);
    const foreign = await s.api(`/user/cardprovider/customer/${first.body['id']}/attach`, { method: 'POST', headers: stranger.headers });
    expect(foreign.status).toBe(404);
    expect(foreign.body['error']).toBe('customer_not_found');
    await createMember(s.stack, elsewhere, { email: m.member.email, password: m.member.password });
    const signIn = await s.api('/authorization', {
      headers: { resource: elsewhere.publicKey },
      json: { email: m.member.email, password: m.member.password },
    });
    const there = { resource: elsewhere.publicKey, token: signIn.body['token'] as string };
    expect((await s.api('/user/cardprovider/customers', { headers: there })).body).toEqual({ items: [] });
    const attached = await s.api(`/user/cardprovider/customer/${first.body['id']}/attach`, { method: 'POST', headers: there });
    expect(attached.status).toBe(200);
    expect(attached.body).toEqual(first.body);
    expect((await s.api('/user/cardprovider/customers', { headers: there })).body).toEqual({ items: [first.body] });

    const removed = await s.api(`/user/cardprovider/customer/${first.body['id']}`, { method: 'DELETE', headers: m.headers });
    expect(removed.body).toEqual({ result: true });
    expect((await s.api('/user/cardprovider/customers', { headers: m.headers })).body).toEqual({ items: [second.body] });
    expect((await s.api(`/user/cardprovider/customer/${first.body['id']}`, { method: 'DELETE', headers: m.headers })).status).toBe(404);
    // The provider customer stays (only the local record goes).
    expect(await provider.customersOf(m.member.email)).toHaveLength(2);
  });

  it('POST /user/card/attempt-attach admits exactly the limit of parallel attempts, then 429', async () => {
    const m = await member({ card_attach_attempts_limit: 3 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.api('/user/card/attempt-attach', { method: 'POST', headers: m.headers })),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    expect(admitted.map((answer) => answer.body['attempts']).sort()).toEqual([1, 2, 3]);
    expect(admitted[0]!.body).toEqual({ attempts: expect.any(Number), limit: 3, window_seconds: 3600 });
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused.map((answer) => [answer.status, answer.body['error']])).toEqual(Array(3).fill([429, 'card_attach_attempts_exceeded']));
  });

  describe('POST /user/cardprovider/confirm-payment-method', () => {
    async function legacyCustomer() {
      const m = await member();
      const created = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: await token() } });
      return { m, customer: created.body };
    }
    /** What the browser does: a setup intent of the customer, confirmed with a new card (which the fake leaves unattached). */
    async function confirmedSetup(m: { headers: Record<string, string> }, customerId: string) {
      const setup = await s.api('/user/payment-provider/cardprovider/setup-intents', {
        method: 'POST',
        headers: m.headers,
        json: { card_customer_id: customerId },
      });
      const method = (await provider.detachedTestCard())['id'] as string;
      const intent = await provider.confirmSetupIntent((setup.body['setup_intent'] as Json)['id'] as string, method);
      expect(intent).toMatchObject({ status: 'succeeded', payment_method: method });
      return { method, intent };
    }

    it('attaches the method its setup intent confirmed to the member’s customer, then saves it (201, the raw record)', async () => {
      const { m, customer } = await legacyCustomer();
      const { method, intent } = await confirmedSetup(m, customer['customer_id'] as string);
      expect((await provider.paymentMethod(method))['customer']).toBeNull();
      const body = { intent, customer };
      const response = await s.api('/user/cardprovider/confirm-payment-method', { method: 'POST', headers: m.headers, json: body });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        user_id: m.member.id,
        payment_customer_id: customer['id'],
        customer_id: customer['customer_id'],
        payment_method_id: method,
        pay_system: 'cardprovider',
        mode: 'test',
        type: 'card',
        data: { card_brand: 'visa', card_country: expect.any(String), card_last4: '4242', expiration_date: '12/2034' },
        card_id: (customer['cards'] as Json[])[0]!['id'],
        created_at: anyIsoDate,
      });
      expect((await provider.paymentMethod(method))['customer']).toBe(customer['customer_id']);
      // A retried confirm: the method is on the customer already, the same record answers.
      const again = await s.api('/user/cardprovider/confirm-payment-method', { method: 'POST', headers: m.headers, json: body });
      expect([again.status, again.body]).toEqual([201, response.body]);
    });

    it('answers 406 incorrect_data, payment_method_saving_errors and confirm_cardprovider_payment_method_error', async () => {
      const { m, customer } = await legacyCustomer();
      const confirm = (json: unknown) => s.api('/user/cardprovider/confirm-payment-method', { method: 'POST', headers: m.headers, json });
      for (const json of [
        undefined,
        {},
        { intent: {}, customer },
        { intent: { payment_method: 'pm_x' }, customer: { ...customer, cards: [] } },
      ]) {
        const response = await confirm(json);
        expect(response.status).toBe(406);
        expect(response.body['error']).toBe('incorrect_data');
      }
      const unknown = await confirm({ intent: { payment_method: 'pm_does_not_exist' }, customer });
      expect(unknown.status).toBe(406);
      expect(unknown.body['error']).toBe('confirm_cardprovider_payment_method_error');
      // The local save's checks now come before the attachment (docs/adr/0230): nothing attached.
      const { method, intent } = await confirmedSetup(m, customer['customer_id'] as string);
      const foreign = await confirm({ intent, customer: { ...customer, id: 999999 } });
      expect(foreign.status).toBe(406);
      expect(foreign.body).toEqual({
        error: 'payment_method_saving_errors',
        error_description: expect.stringContaining('payment_customer_id'),
        req_guid: anyRequestId,
      });
      // A method attached to no customer, without the setup intent that confirmed it: not attached.
      const unproven = await confirm({ intent: { payment_method: method }, customer });
      expect([unproven.status, unproven.body['error']]).toEqual([406, 'confirm_cardprovider_payment_method_error']);
      expect((await provider.paymentMethod(method))['customer']).toBeNull();
    });
  });
});
