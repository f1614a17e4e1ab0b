import {
  customerNotFound,
  incorrectCustomerId,
  incorrectDataNotAcceptable,
  incorrectToken,
  type ServiceError,
} from '@masthead/core/errors';
import { toPageQuery } from '@masthead/core/pagination';
import { LegacyVariant, type CardItem, type LegacyCustomer } from '@masthead/proto/billing/legacy_sources';
import { z } from 'zod';
import { jsonObjectBody, pathId, type pageRequest, raise, text } from '../http/request.js';
import { documentedAs, jsonBodyDocument, providerIdField } from '../openapi/hints.js';
import { serializePaginator } from '../serializers/catalog.js';
import type { Handler } from '../routes/define.js';
import { scopeOf } from './payment-sources.js';

/** Legacy card-provider routes (document 1 D); docs/adr/0124. */

/** A JSON object; form fields are not read (document 1 D). */
const jsonBody = jsonObjectBody(incorrectDataNotAcceptable);

const tokenField = (field: 'customer_id' | 'token', missing: () => ServiceError) =>
  documentedAs(
    jsonBody.transform((json, ctx) => {
      const token = text.parse(json[field]).trim();
      return token ? { token } : raise(ctx, missing);
    }),
    // `customer_id` of POST /user/cardprovider/customer holds a token too (document 1 D).
    jsonBodyDocument({ [field]: providerIdField('token') }),
  );

export const legacyCustomerRequest = tokenField('customer_id', incorrectCustomerId);
export const legacyTokenRequest = tokenField('token', incorrectToken);

/** The legacy customer record (document 1, Resources): no `payment_methods` key. */
const serializeLegacyCustomer = (customer: LegacyCustomer) => ({
  id: customer.id,
  pay_system: customer.paySystem,
  customer_id: customer.customerId,
  cards: customer.cards.map((card) => ({ id: card.id, card_last4: card.cardLast4 })),
});

const createLegacy =
  (variant: LegacyVariant): Handler<'member', { token: string }> =>
  async (context, { token }, { legacySources }) => {
    const customer = await legacySources.createLegacyCustomer({ scope: scopeOf(context), token, variant });
    return { status: 201, body: serializeLegacyCustomer(customer) };
  };

/** POST /user/cardprovider/customer: `customer_id` holds a provider token (not a customer ID). */
export const createLegacyCustomer = createLegacy(LegacyVariant.LEGACY_VARIANT_CUSTOMER);
/** POST /user/cardprovider/token. */
export const createLegacyCustomerFromToken = createLegacy(LegacyVariant.LEGACY_VARIANT_TOKEN);

const nested = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
const localId = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0
    ? value
    : typeof value === 'string' && /^\d{1,9}$/.test(value)
      ? Number(value)
      : 0;

/**
 * The nested reads of confirm-payment-method; any of them missing is 406 incorrect_data.
 * `intent.id` (optional) names the setup intent that confirmed an unattached method (docs/adr/0230).
 */
export const confirmRequest = documentedAs(
  jsonBody.transform((json, ctx) => {
    const paymentMethodId = text.parse(nested(json['intent'], 'payment_method')).trim();
    const setupIntentId = text.parse(nested(json['intent'], 'id')).trim();
    const customerId = text.parse(nested(json['customer'], 'customer_id')).trim();
    const paymentCustomerId = localId(nested(json['customer'], 'id'));
    const cards = nested(json['customer'], 'cards');
    const cardId = localId(Array.isArray(cards) ? nested(cards[0], 'id') : undefined);
    if (!paymentMethodId || !customerId || !paymentCustomerId || !cardId) return raise(ctx, incorrectDataNotAcceptable);
    return { paymentMethodId, customerId, paymentCustomerId, cardId, setupIntentId };
  }),
  jsonBodyDocument({
    intent: z.object({ payment_method: providerIdField('payment_method'), id: providerIdField('setup_intent').optional() }),
    customer: z.object({
      id: z.union([z.number().int(), z.string()]),
      customer_id: providerIdField('customer'),
      cards: z.array(z.object({ id: z.union([z.number().int(), z.string()]) })).min(1),
    }),
  }),
);

/** POST /user/cardprovider/confirm-payment-method: 201 with the raw saved method. */
export const confirmPaymentMethod: Handler<'member', z.output<typeof confirmRequest>> = async (context, input, { legacySources }) => {
  const saved = await legacySources.confirmPaymentMethod({ scope: scopeOf(context), ...input });
  return { status: 201, body: JSON.parse(saved.json) as unknown };
};

/** A legacy card as GET /user/cards and POST /user/card show it (ADR 0124). */
const serializeCardItem = (card: CardItem) => ({
  id: card.id,
  card_id: card.cardId,
  card_brand: card.cardBrand,
  card_country: card.cardCountry,
  card_last4: card.cardLast4,
  expiration_date: card.expirationDate,
  customer_id: card.customerId,
  pay_system: card.paySystem,
  default: card.default,
});

/** GET /user/cards: `{items, paginator}` (document 1 conventions); ADR 0124. */
export const listCards: Handler<'member', z.output<typeof pageRequest>> = async (context, page, { legacySources }) => {
  const result = await legacySources.listCards({ scope: scopeOf(context), query: toPageQuery(page) }, { idempotent: true });
  return {
    body: {
      items: result.items.map(serializeCardItem),
      paginator: serializePaginator(result.paginator),
    },
  };
};

/** GET /user/cardprovider/customers: `{items: [legacy customer record]}`, no pagination. */
export const listLegacyCustomers: Handler<'member'> = async (context, _input, { legacySources }) => {
  const result = await legacySources.listLegacyCustomers(scopeOf(context), { idempotent: true });
  return { body: { items: result.items.map(serializeLegacyCustomer) } };
};

export const customerRequest = z.object({ params: z.object({ id: pathId(customerNotFound) }) }).transform(({ params }) => params);

/** POST /user/cardprovider/customer/{id}/attach: 200 with the legacy customer record. */
export const attachLegacyCustomer: Handler<'member', { id: number }> = async (context, { id }, { legacySources }) => ({
  body: serializeLegacyCustomer(await legacySources.attachLegacyCustomer({ scope: scopeOf(context), id })),
});

/** DELETE /user/cardprovider/customer/{id}: the local record only; `{result: true}`. */
export const deleteLegacyCustomer: Handler<'member', { id: number }> = async (context, { id }, { legacySources }) => {
  await legacySources.deleteLegacyCustomer({ scope: scopeOf(context), id });
  return { body: { result: true } };
};

/** POST /user/card/attempt-attach: 200 `{attempts, limit, window_seconds}`, or 429 (ADR 0125). */
export const recordCardAttachAttempt: Handler<'member'> = async (context, _input, { legacySources }) => {
  const result = await legacySources.recordCardAttachAttempt(scopeOf(context));
  return { body: { attempts: result.attempts, limit: result.limit, window_seconds: result.windowSeconds } };
};

/**
 * POST /user/cardprovider/customer/import: `customer_id` (optional) is a provider customer ID;
 * anything but a `cus_…` string is 406 incorrect_customer_id.
 */
export const importCustomerRequest = documentedAs(
  jsonBody.transform((json, ctx) => {
    const value = json['customer_id'];
    if (value === undefined || value === null || value === '') return { customerId: '' };
    return typeof value === 'string' && /^cus_[A-Za-z0-9]{1,250}$/.test(value.trim())
      ? { customerId: value.trim() }
      : raise(ctx, incorrectCustomerId);
  }),
  jsonBodyDocument({
    customer_id: providerIdField('customer', z.string().regex(/^cus_[A-Za-z0-9]{1,250}$/))
      .nullable()
      .optional(),
  }),
);

/** 201 with the legacy customer record when this call recorded it, 200 when it was already recorded. */
export const importLegacyCustomer: Handler<'member', z.output<typeof importCustomerRequest>> = async (
  context,
  { customerId },
  { legacySources },
) => {
  const result = await legacySources.importLegacyCustomer({ scope: scopeOf(context), customerId });
  return { status: result.created ? 201 : 200, body: serializeLegacyCustomer(result.customer!) };
};

/** POST /user/card: `token` (a provider card token) and optional `customer_id` (a local legacy customer ID). */
export const addCardRequest = documentedAs(
  jsonBody.transform((json, ctx) => {
    const token = text.parse(json['token']).trim();
    if (!token) return raise(ctx, incorrectToken);
    const customer = json['customer_id'];
    if (customer === undefined || customer === null || customer === '') return { token, customerId: 0 };
    const customerId = localId(customer);
    return customerId ? { token, customerId } : raise(ctx, customerNotFound);
  }),
  jsonBodyDocument({ token: providerIdField('token'), customer_id: z.union([z.number().int(), z.string()]).nullable().optional() }),
);

/** POST /user/card: 201 with the card as GET /user/cards lists it. */
export const addCard: Handler<'member', z.output<typeof addCardRequest>> = async (context, input, { legacySources }) => ({
  status: 201,
  body: serializeCardItem(await legacySources.addCard({ scope: scopeOf(context), ...input })),
});
