import { randomBytes } from 'node:crypto';
import { providerIdFields, ROUTES, type ProviderObjectKind, type RouteDefinition } from '@masthead/gateway';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import type { Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingKit, poisonedSource } from './billing-support.js';
import { connections } from './card-provider-support.js';
import type { Json } from './catalog-support.js';
import { signedInMember } from './member-session.js';
import { anyRequestId, useStack } from './support.js';

const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Card-provider IDs a request names must be the caller's own (docs/adr/0230): through the
 * gateway, billing, FerretDB and localstripe (one provider account for every resource of the
 * run, as resources of one publisher share one), a member names another member's customer,
 * payment method, card, setup intent or used token on every route that takes one, and is refused
 * with nothing written: not at the provider, not in billing's database.
 */
describe('card-provider IDs belong to the caller', () => {
  const s = useStack({ env: { ACCOUNT_REQUEST_RESOURCE_ID: '9100' } });
  const { provider, shop, buyer, item, pay, paidCharges, memberships } = billingKit(s);
  const token = async () => (await provider.cardToken())['id'] as string;
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const save = (headers: Record<string, string>, paymentMethod: string) =>
    s.api('/user/payment-provider/cardprovider/save-intents', {
      method: 'POST',
      headers,
      json: { setup_intent: { payment_method: paymentMethod } },
    });
  const setupIntent = async (headers: Record<string, string>, customerId: string) => {
    const response = await s.api('/user/payment-provider/cardprovider/setup-intents', {
      method: 'POST',
      headers,
      json: { card_customer_id: customerId },
    });
    expect(response.status).toBe(200);
    return (response.body['setup_intent'] as Json)['id'] as string;
  };

  beforeAll(async () => {
    // The deployment's own key (resource 0, live) for /account-requests-payment, as an operator stores it.
    const client = connections(s);
    await client.setSecretKey({ resourceId: 0, mode: 'live', secretKey: FAKE_PROVIDER_KEY });
    client.close();
  });

  /**
   * The victim: a card saved through setup and save intents, a legacy customer made from a token
   * (so a card and a used token), and a setup intent she confirmed with a card the fake leaves
   * attached to no customer.
   */
  async function victimIn(tenant: Tenant) {
    const m = await buyer(tenant);
    const usedToken = await token();
    const legacy = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: usedToken } });
    expect(legacy.status).toBe(201);
    const legacyCustomer = legacy.body['customer_id'] as string;
    const [card] = await provider.cardsOf(legacyCustomer);
    const looseMethod = (await provider.detachedTestCard())['id'] as string;
    const confirmed = await provider.confirmSetupIntent(await setupIntent(m.headers, m.customerId), looseMethod);
    expect(confirmed).toMatchObject({ status: 'succeeded', payment_method: looseMethod });
    return { ...m, legacyCustomer, cardId: card!['id'] as string, usedToken, setupIntent: confirmed['id'] as string, looseMethod };
  }
  type Victim = Awaited<ReturnType<typeof victimIn>>;

  /**
   * The attacker, with objects of their own for a request each route would accept: a customer, a
   * card attached to it but not saved, a legacy customer with a card, a setup intent confirmed
   * with a card attached to none, and an account request.
   */
  async function attackerIn(tenant: Tenant) {
    const m = await signedInMember(s, tenant);
    const customer = await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers });
    const customerId = (customer.body['payment_customer'] as Json)['customer_id'] as string;
    const attachedMethod = (await provider.attachTestCard(customerId))['id'] as string;
    const legacy = await s.api('/user/cardprovider/token', { method: 'POST', headers: m.headers, json: { token: await token() } });
    expect(legacy.status).toBe(201);
    const looseMethod = (await provider.detachedTestCard())['id'] as string;
    const setup = await provider.confirmSetupIntent(await setupIntent(m.headers, legacy.body['customer_id'] as string), looseMethod);
    const email = `applicant-${randomBytes(4).toString('hex')}@example.test`;
    const applied = await s.api('/account-requests', {
      method: 'POST',
      json: { first_name: 'Mal', last_name: 'Lory', company_name: 'Press', job_title: 'Editor', email, plan: 'pro' },
    });
    expect(applied.status).toBe(200);
    return {
      ...m,
      customerId,
      attachedMethod,
      legacy: legacy.body,
      looseMethod,
      setupIntent: setup['id'] as string,
      accountRequest: applied.body['account_id'] as number,
      accountEmail: email,
    };
  }
  type Attacker = Awaited<ReturnType<typeof attackerIn>>;

  /** Another member's objects of each kind. */
  const FOREIGN: Record<ProviderObjectKind, (victim: Victim) => string[]> = {
    customer: (victim) => [victim.customerId, victim.legacyCustomer],
    // A card is served by the provider as a method too.
    payment_method: (victim) => [victim.providerMethodId, victim.cardId, victim.looseMethod],
    setup_intent: (victim) => [victim.setupIntent],
    token: (victim) => [victim.usedToken],
  };

  /**
   * Every route whose request names a provider object: a body the attacker's own objects make
   * acceptable, and the answer for a foreign object of each kind (the route's documented code:
   * POST /user/cardprovider/customer's is the spec's 500 incorrect_customer).
   */
  const ATTACKS: Record<
    string,
    { external?: true; body: (a: Attacker) => Promise<Json>; refused: Partial<Record<ProviderObjectKind, [number, string]>> }
  > = {
    'POST /user/payment-provider/cardprovider/setup-intents': {
      body: async (a) => ({ card_customer_id: a.customerId }),
      refused: { customer: [409, 'cardprovider_setup_intent_error'] },
    },
    'POST /user/payment-provider/cardprovider/save-intents': {
      body: async (a) => ({ setup_intent: { payment_method: a.attachedMethod } }),
      refused: { payment_method: [409, 'cardprovider_save_intent_error'] },
    },
    'POST /user/cardprovider/confirm-payment-method': {
      body: async (a) => ({ intent: { id: a.setupIntent, payment_method: a.looseMethod }, customer: a.legacy }),
      refused: {
        payment_method: [406, 'confirm_cardprovider_payment_method_error'],
        setup_intent: [406, 'confirm_cardprovider_payment_method_error'],
        customer: [406, 'payment_method_saving_errors'],
      },
    },
    'POST /user/cardprovider/customer': {
      body: async () => ({ customer_id: await token() }),
      refused: { token: [500, 'incorrect_customer'] },
    },
    'POST /user/cardprovider/token': {
      body: async () => ({ token: await token() }),
      refused: { token: [406, 'incorrect_retrieve_token'] },
    },
    'POST /user/cardprovider/customer/import': {
      body: async (a) => ({ customer_id: a.customerId }),
      refused: { customer: [404, 'customer_not_found'] },
    },
    'POST /user/card': { body: async () => ({ token: await token() }), refused: { token: [406, 'incorrect_retrieve_token'] } },
    'POST /account-requests-payment': {
      external: true,
      body: async (a) => ({ account_id: a.accountRequest, cardprovider_token: await token() }),
      refused: { token: [409, 'account_request_payment_error'] },
    },
  };
  const TAKING_PROVIDER_IDS = ROUTES.filter((route) => providerIdFields(route.request).length > 0);

  /** Billing's whole database but the attach-attempt counter, which POST /user/card advances for every attempt by design (ADR 0125). */
  async function billingState(): Promise<Record<string, unknown[]>> {
    const db = s.db('billing');
    const all: Record<string, unknown[]> = {};
    for (const { name } of await db.listCollections().toArray()) {
      if (name !== 'card_attach_attempts') all[name] = await db.collection(name).find().sort({ _id: 1 }).toArray();
    }
    return all;
  }

  /** What the provider holds of both members: where each object is attached, and every customer, method, card, intent and charge. */
  async function providerState(victim: Victim, attacker: Attacker) {
    const customers = [
      victim.customerId,
      victim.legacyCustomer,
      ...(await provider.customersOf(attacker.member.email)).map((customer) => customer['id'] as string),
      ...(await provider.customersOf(attacker.accountEmail)).map((customer) => customer['id'] as string),
    ];
    const holdings = await Promise.all(
      customers.map(async (customer) => ({
        customer,
        methods: (await provider.paymentMethodsOf(customer)).map((method) => method['id']),
        cards: (await provider.cardsOf(customer)).map((card) => [card['id'], card['customer']]),
        setupIntents: (await provider.setupIntentsOf(customer)).map((intent) => [intent['id'], intent['status'], intent['payment_method']]),
        charges: (await provider.chargesOf(customer)).map((charge) => charge['id']),
      })),
    );
    const attachedTo = async (method: string) => (await provider.paymentMethod(method))['customer'];
    return {
      holdings,
      victimMethod: await attachedTo(victim.providerMethodId),
      victimLooseMethod: await attachedTo(victim.looseMethod),
      victimCard: await attachedTo(victim.cardId),
    };
  }

  it('marks every field holding a provider ID in the route table, and this test attacks each of those routes', () => {
    expect(TAKING_PROVIDER_IDS.map(routeKey).sort()).toEqual(Object.keys(ATTACKS).sort());
    for (const route of TAKING_PROVIDER_IDS) {
      for (const field of providerIdFields(route.request)) {
        expect(field.path[0]).toBe('json');
        expect(ATTACKS[routeKey(route)]!.refused[field.kind]).toBeDefined();
      }
    }
  });

  it('refuses another member’s object on every route that takes a provider ID, and nothing changes', async () => {
    const tenant = (await shop()).tenant;
    const victim = await victimIn(tenant);
    const attacker = await attackerIn(tenant);
    const billingBefore = await billingState();
    const providerBefore = await providerState(victim, attacker);
    const answers: string[] = [];
    for (const route of TAKING_PROVIDER_IDS) {
      const attack = ATTACKS[routeKey(route)]!;
      for (const field of providerIdFields(route.request)) {
        for (const foreign of FOREIGN[field.kind](victim)) {
          const body = structuredClone(await attack.body(attacker));
          // The field at its path in the body (path[0] is the body itself).
          const parent = field.path.slice(1, -1).reduce((node, key) => node[key] as Json, body);
          parent[field.path.at(-1)!] = foreign;
          const response = await s.api(route.path, {
            method: route.method,
            json: body,
            ...(attack.external ? {} : { headers: attacker.headers }),
          });
          const [status, code] = attack.refused[field.kind]!;
          const label = `${routeKey(route)} ${field.path.slice(1).join('.')}=${foreign}`;
          answers.push(`${label} → ${response.status} ${String(response.body['error'])}`);
          expect([label, response.status, response.body]).toEqual([label, status, error(code)]);
        }
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(17);
    expect(await providerState(victim, attacker)).toEqual(providerBefore);
    expect(await billingState()).toEqual(billingBefore);

    // The same requests with the attacker's own objects are accepted: each refusal above was the foreign object's.
    for (const route of TAKING_PROVIDER_IDS) {
      const attack = ATTACKS[routeKey(route)]!;
      const response = await s.api(route.path, {
        method: route.method,
        json: await attack.body(attacker),
        ...(attack.external ? {} : { headers: attacker.headers }),
      });
      expect([routeKey(route), response.status < 300, response.body]).toEqual([routeKey(route), true, response.body]);
    }
  });

  it('a member who names another member’s saved card can neither save it nor buy with it; the card stays hers', async () => {
    const { tenant, pricing } = await shop();
    const victim = await buyer(tenant);
    const attacker = await signedInMember(s, tenant);
    const saved = await save(attacker.headers, victim.providerMethodId);
    expect([saved.status, saved.body]).toEqual([409, error('cardprovider_save_intent_error')]);
    expect((await s.api('/user/payment-sources', { headers: attacker.headers })).body).toEqual({ items: [] });
    const bought = await pay(attacker.headers, [item(pricing.id)]);
    expect([bought.status, bought.body]).toEqual([409, error('invalid_payment_source')]);
    expect(await memberships(tenant, attacker.member.id)).toEqual([]);
    expect(await paidCharges(victim.customerId)).toEqual([]);
    expect((await provider.paymentMethod(victim.providerMethodId))['customer']).toBe(victim.customerId);
    // Her own purchase with it goes on as before.
    expect((await pay(victim.headers, [item(pricing.id)])).status).toBe(200);
    expect(await paidCharges(victim.customerId)).toHaveLength(1);
  });

  it('a saved record naming another member’s card (written before ownership was checked) charges nobody and detaches nothing', async () => {
    const { tenant, pricing } = await shop();
    const victim = await buyer(tenant);
    const attacker = await signedInMember(s, tenant);
    const ids = await poisonedSource(s, tenant, attacker.member.id, {
      customerId: victim.customerId,
      paymentMethod: victim.providerMethodId,
    });
    const db = s.db('billing');
    for (const items of [[item(pricing.id)], [item(pricing.id, { payment_method_id: ids })]]) {
      const bought = await pay(attacker.headers, items);
      expect([bought.status, bought.body]).toEqual([409, error('invalid_payment_source')]);
    }
    expect(await paidCharges(victim.customerId)).toEqual([]);
    expect(await memberships(tenant, attacker.member.id)).toEqual([]);
    // Removing it drops the attacker's record; the victim's card stays attached to her customer.
    const removed = await s.api(`/user/payment-sources/payment-method/${ids}`, { method: 'DELETE', headers: attacker.headers });
    expect([removed.status, removed.body]).toEqual([200, { result: true }]);
    expect(await db.collection('payment_methods').countDocuments({ _id: ids as never })).toBe(0);
    expect((await provider.paymentMethod(victim.providerMethodId))['customer']).toBe(victim.customerId);
    expect((await s.api('/user/payment-sources', { headers: victim.headers })).body['items']).toHaveLength(1);
  });

  it('a card attached to no customer is not attached to another member’s customer, even with the setup intent that confirmed it', async () => {
    const tenant = (await shop()).tenant;
    const victim = await victimIn(tenant);
    const attacker = await attackerIn(tenant);
    const stolen = { intent: { id: victim.setupIntent, payment_method: victim.looseMethod }, customer: attacker.legacy };
    const response = await s.api('/user/cardprovider/confirm-payment-method', { method: 'POST', headers: attacker.headers, json: stolen });
    expect([response.status, response.body]).toEqual([406, error('confirm_cardprovider_payment_method_error')]);
    expect((await provider.paymentMethod(victim.looseMethod))['customer']).toBeNull();
    expect(await s.db('billing').collection('payment_methods').countDocuments({ payment_method_id: victim.looseMethod })).toBe(0);
  });
});
