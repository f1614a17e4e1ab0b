import { randomBytes } from 'node:crypto';
import { createServiceClient } from '@masthead/core/grpc';
import { PromoCodeServiceService, type CreatePromoCodeRequest } from '@masthead/proto/billing/promos';
import type { Tenant } from '@masthead/testkit';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { cardProviderTenant, localStripe } from './card-provider-support.js';
import { catalogKit, type Json } from './catalog-support.js';
import { signedInMember } from './member-session.js';
import type { StackHandle } from './support.js';

/** A card that pays, one declined when charged, one that asks for 3-D Secure (localstripe, ADR 0110). */
export const CARDS = { visa: '4242424242424242', declined: '4000000000000341', threeDSecure: '4000002760003184' } as const;

/**
 * Checkout arrangements (docs/adr/0142): a test-mode resource with a Pricing for sale, and
 * members who saved a card through the documented flow (read-or-create the customer, the card
 * attached by the browser, save-intents).
 */
export function billingKit(s: StackHandle) {
  const provider = localStripe();
  const kit = catalogKit(s);

  /** A resource in test mode with its key stored, a `Digital` plan and a 9.99 USD monthly Pricing. */
  async function shop(settings: Json = {}) {
    const tenant = await cardProviderTenant(s, settings);
    const plan = await kit.plan(tenant, 'digital', { title: 'Digital' });
    const pricing = await kit.pricing(plan.id, 'Monthly', { price: 999, currency: 'USD', period: '1 month' });
    return { tenant, plan, pricing };
  }

  /** A signed-in member of the tenant with a saved card (`number`), its local method ID and provider customer. */
  async function buyer(tenant: Tenant, number: string = CARDS.visa) {
    const m = await signedInMember(s, tenant);
    const customer = await s.api('/user/payment-provider/cardprovider/customer', { headers: m.headers });
    expect(customer.status).toBe(200);
    const customerId = (customer.body['payment_customer'] as Json)['customer_id'] as string;
    const card = await provider.attachCard(customerId, number);
    const saved = await s.api('/user/payment-provider/cardprovider/save-intents', {
      method: 'POST',
      headers: m.headers,
      json: { setup_intent: { payment_method: card['id'] } },
    });
    expect(saved.status).toBe(200);
    return { ...m, customerId, methodId: (saved.body['payment_method'] as Json)['id'] as number, providerMethodId: card['id'] as string };
  }

  const item = (pricingId: number, extra: Json = {}) => ({ item_type: 'subscription', item_key: String(pricingId), ...extra });

  const pay = (headers: Record<string, string>, items: Json[], idempotencyKey?: string) =>
    s.api('/payment', {
      method: 'POST',
      headers: idempotencyKey ? { ...headers, 'idempotency-key': idempotencyKey } : headers,
      json: { items },
    });

  /** Succeeded charges of the customer on the provider: the money actually taken. */
  const paidCharges = async (customerId: string) =>
    (await provider.chargesOf(customerId)).filter((charge) => charge['status'] === 'succeeded' && charge['paid'] !== false);

  /** An operator's promo code (what `masthead-admin create-promo` does). */
  async function promo(tenant: Tenant, request: Partial<CreatePromoCodeRequest> & { code: string }) {
    const client = createServiceClient(PromoCodeServiceService, s.stack.env['BILLING_ADDR']!, { defaultDeadlineMs: 5000 });
    try {
      return await client.createPromoCode({
        resourceId: tenant.resourceId,
        discountType: 'percent',
        discountValue: 10,
        currency: '',
        maxUses: 0,
        validFrom: '',
        validUntil: '',
        pricingIds: [],
        ...request,
      });
    } finally {
      client.close();
    }
  }

  /** The member's active memberships in the resource, as catalog stores them. */
  const memberships = (tenant: Tenant, userId: number) =>
    s.db('catalog').collection('memberships').find({ resource_id: tenant.resourceId, user_id: userId, active: true }).toArray();

  return { provider, kit, shop, buyer, item, pay, paidCharges, promo, memberships };
}

/**
 * What save-intents wrote before it checked ownership (docs/adr/0230), arranged in billing's
 * database: `holder` adopted `customerId` (another member's provider customer) and saved its
 * `paymentMethod` as their default. The local ID of both records (nine digits: a path ID's most,
 * far above any ID a run's counters hand out).
 */
export async function poisonedSource(
  s: StackHandle,
  tenant: Tenant,
  holder: number,
  foreign: { customerId: string; paymentMethod: string },
): Promise<number> {
  const db = s.db('billing');
  const id = 900_000_000 + Math.floor(Math.random() * 90_000_000);
  const created_at = new Date();
  await db.collection('payment_customers').insertOne({
    _id: id as never,
    user_id: holder,
    resource_id: tenant.resourceId,
    resource_ids: [tenant.resourceId],
    pay_system: 'cardprovider',
    customer_id: foreign.customerId,
    mode: 'test',
    kind: 'modern',
    customer_key: `${holder}:cardprovider:${foreign.customerId}`,
    created_at,
  });
  await db.collection('payment_methods').insertOne({
    _id: id as never,
    user_id: holder,
    payment_customer_id: id,
    customer_id: foreign.customerId,
    pay_system: 'cardprovider',
    payment_method_id: foreign.paymentMethod,
    mode: 'test',
    type: 'card',
    data: { card_brand: 'visa', card_country: 'FR', card_last4: '4242', expiration_date: '12/2034' },
    card_id: null,
    method_key: `${holder}:${foreign.paymentMethod}`,
    created_at,
  });
  await db
    .collection('default_sources')
    .updateOne(
      { _id: `${holder}:cardprovider` as never },
      { $set: { source_type: 'payment-method', source_id: id, updated_at: created_at } },
      { upsert: true },
    );
  return id;
}

/**
 * Card-provider events posted to POST /webhooks/cardprovider (docs/adr/0147), signed with the
 * SDK's test-header helper and `secret` unless told otherwise.
 */
export function signedWebhooks(s: StackHandle, secret: string) {
  /** A provider event around `object` (a snapshot: billing refetches the object itself). */
  const event = (type: string, object: Json, id = `evt_${randomBytes(8).toString('hex')}`) => ({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
  /** Signs and posts `body`: an event, or a payload as sent (text, to sign what is no event). */
  const deliver = (body: Json | string, options: { secret?: string; timestamp?: number; signature?: string } = {}) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const signature =
      options.signature ??
      Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? secret, timestamp: options.timestamp });
    return s.api('/webhooks/cardprovider', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      raw: payload,
    });
  };
  return { event, deliver };
}
