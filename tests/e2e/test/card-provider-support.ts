import { createServiceClient } from '@masthead/core/grpc';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import { createTenant, type Tenant } from '@masthead/testkit';
import { inject } from 'vitest';
import type { StackHandle } from './support.js';

type Json = Record<string, unknown>;

/**
 * The run's localstripe (docs/adr/0110), spoken to over plain HTTP as the provider's API is: the
 * tests arrange provider-side states (a card attached by the browser's SDK) and count the objects
 * billing created, by their own email or customer ID (the fake's store is shared by the run).
 */
export function localStripe() {
  const base = inject('localStripeUrl');
  if (!base) throw new Error('localstripe did not start; see the warning at the start of the run');
  const request = async (method: string, path: string, form?: Record<string, string>): Promise<Json> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${FAKE_PROVIDER_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    const body = (await response.json()) as Json;
    if (!response.ok) throw new Error(`localstripe ${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const list = async (path: string) => ((await request('GET', path))['data'] as Json[]) ?? [];
  /** The objects of a list the fake cannot filter by customer, paged through and filtered here. */
  const ofCustomer = async (path: string, customer: string) => {
    const found: Json[] = [];
    for (let after = ''; ;) {
      const page = await request('GET', `${path}?limit=100${after ? `&starting_after=${after}` : ''}`);
      const data = (page['data'] as Json[]) ?? [];
      found.push(...data.filter((object) => object['customer'] === customer));
      if (page['has_more'] !== true || data.length === 0) return found;
      after = data.at(-1)!['id'] as string;
    }
  };
  const cardToken = (number = '4242424242424242') =>
    request('POST', '/v1/tokens', { 'card[number]': number, 'card[exp_month]': '12', 'card[exp_year]': '2034', 'card[cvc]': '123' });
  return {
    customersOf: (email: string) => list(`/v1/customers?email=${encodeURIComponent(email)}&limit=100`),
    chargesOf: (customer: string) => list(`/v1/charges?customer=${encodeURIComponent(customer)}&limit=100`),
    /** What the browser does after confirming a setup intent: a new test card on the customer. */
    attachTestCard: (customer: string) => request('POST', '/v1/payment_methods/pm_card_visa/attach', { customer }),
    /** A test card attached to no customer. */
    detachedTestCard: () =>
      request('POST', '/v1/payment_methods', {
        type: 'card',
        'card[number]': '4242424242424242',
        'card[exp_month]': '12',
        'card[exp_year]': '2034',
        'card[cvc]': '123',
      }),
    paymentMethod: (id: string) => request('GET', `/v1/payment_methods/${id}`),
    paymentMethodsOf: (customer: string) => list(`/v1/payment_methods?customer=${encodeURIComponent(customer)}&type=card`),
    /** What the browser's SDK does with a setup intent's client secret and a card (the fake leaves the card unattached). */
    confirmSetupIntent: (id: string, paymentMethod: string) =>
      request('POST', `/v1/setup_intents/${id}/confirm`, { payment_method: paymentMethod }),
    /** A customer made on the provider directly (by the publisher's dashboard, say), with one card. */
    customerWithCard: async (email: string) => {
      const customer = await request('POST', '/v1/customers', { email });
      const token = await cardToken();
      await request('POST', `/v1/customers/${customer['id'] as string}/sources`, { source: token['id'] as string });
      return customer;
    },
    cardsOf: (customer: string) => list(`/v1/customers/${encodeURIComponent(customer)}/sources?object=card`),
    cardToken,
    /**
     * A card of `number` attached to the customer, as the browser leaves it after a setup intent:
     * 4000000000000341 is declined when charged, 4000002760003184 asks for 3-D Secure.
     */
    attachCard: async (customer: string, number: string) => {
      const method = await request('POST', '/v1/payment_methods', {
        type: 'card',
        'card[number]': number,
        'card[exp_month]': '12',
        'card[exp_year]': '2034',
        'card[cvc]': '123',
      });
      return request('POST', `/v1/payment_methods/${method['id'] as string}/attach`, { customer });
    },
    /** What the provider's client SDK does once the member passed 3-D Secure (the fake's own route). */
    authenticate: (paymentIntent: string, clientSecret: string, success = true) =>
      request('POST', `/v1/payment_intents/${paymentIntent}/_authenticate`, { client_secret: clientSecret, success: String(success) }),
    /** Every payment intent of the customer (the fake lists intents without a customer filter: page through all). */
    paymentIntentsOf: (customer: string) => ofCustomer('/v1/payment_intents', customer),
    /** Every setup intent of the customer, likewise. */
    setupIntentsOf: (customer: string) => ofCustomer('/v1/setup_intents', customer),
    refund: (paymentIntent: string, amount?: number) =>
      request(
        'POST',
        '/v1/refunds',
        amount === undefined ? { payment_intent: paymentIntent } : { payment_intent: paymentIntent, amount: String(amount) },
      ),
    charge: (id: string) => request('GET', `/v1/charges/${id}`),
    /** A payment made on the provider directly, outside billing (the publisher's dashboard, say). */
    payDirectly: (customer: string, paymentMethod: string, amount: number) =>
      request('POST', '/v1/payment_intents', {
        amount: String(amount),
        currency: 'usd',
        customer,
        payment_method: paymentMethod,
        confirm: 'true',
      }),
    paymentIntent: (id: string) => request('GET', `/v1/payment_intents/${id}`),
  };
}

/** Operator access to billing's card-provider connections (what `masthead-admin` does). */
export const connections = (s: StackHandle) =>
  createServiceClient(CardProviderConnectionServiceService, s.stack.env['BILLING_ADDR']!, { defaultDeadlineMs: 5000 });

/**
 * A resource in test mode (`payments_in_live_mode: false`) whose test secret key is the fake's,
 * stored through billing like an operator would.
 */
export async function cardProviderTenant(s: StackHandle, settings: Json = {}): Promise<Tenant> {
  const tenant = await createTenant(s.stack, { settings: { payments_in_live_mode: false, ...settings } });
  const client = connections(s);
  try {
    await client.setSecretKey({ resourceId: tenant.resourceId, mode: 'test', secretKey: FAKE_PROVIDER_KEY });
  } finally {
    client.close();
  }
  return tenant;
}
