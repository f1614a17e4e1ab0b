import {
  customerNotFound,
  incorrectCustomerId,
  incorrectDataNotAcceptable,
  incorrectToken,
  type ServiceError,
} from '@masthead/core/errors';
import { toPageQuery } from '@masthead/core/pagination';
import { LegacyVariant, type LegacyCustomer } from '@masthead/proto/billing/legacy_sources';
import { z } from 'zod';
import { pathId, type pageRequest, raise, text } from '../http/request.js';
import { serializePaginator } from '../serializers/catalog.js';
import type { Handler } from '../routes/define.js';
import { scopeOf } from './payment-sources.js';

/** Legacy card-provider routes (document 1 D); docs/adr/0124. */

/** A JSON object; form fields are not read (document 1 D). */
const jsonObjectBody = z
  .object({ json: z.record(z.unknown()).optional() })
  .transform(({ json }, ctx) => json ?? raise(ctx, incorrectDataNotAcceptable));

const tokenField = (field: 'customer_id' | 'token', missing: () => ServiceError) =>
  jsonObjectBody.transform((json, ctx) => {
    const token = text.parse(json[field]).trim();
    return token ? { token } : raise(ctx, missing);
  });

export const legacyCustomerRequest = tokenField('customer_id', incorrectCustomerId);
export const legacyTokenRequest = tokenField('token', incorrectToken);

const createLegacy =
  (variant: LegacyVariant): Handler<'member', { token: string }> =>
  async (context, { token }, { legacySources }) => {
    const customer = await legacySources.createLegacyCustomer(
      { scope: scopeOf(context), token, variant },
      { requestId: context.requestId },
    );
    return {
      status: 201,
      body: {
        id: customer.id,
        pay_system: customer.paySystem,
        customer_id: customer.customerId,
        cards: customer.cards.map((card) => ({ id: card.id, card_last4: card.cardLast4 })),
      },
    };
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

/** The nested reads of confirm-payment-method; any of them missing is 406 incorrect_data. */
export const confirmRequest = jsonObjectBody.transform((json, ctx) => {
  const paymentMethodId = text.parse(nested(json['intent'], 'payment_method')).trim();
  const customerId = text.parse(nested(json['customer'], 'customer_id')).trim();
  const paymentCustomerId = localId(nested(json['customer'], 'id'));
  const cards = nested(json['customer'], 'cards');
  const cardId = localId(Array.isArray(cards) ? nested(cards[0], 'id') : undefined);
  if (!paymentMethodId || !customerId || !paymentCustomerId || !cardId) return raise(ctx, incorrectDataNotAcceptable);
  return { paymentMethodId, customerId, paymentCustomerId, cardId };
});

/** POST /user/cardprovider/confirm-payment-method: 201 with the raw saved method. */
export const confirmPaymentMethod: Handler<'member', z.output<typeof confirmRequest>> = async (context, input, { legacySources }) => {
  const saved = await legacySources.confirmPaymentMethod({ scope: scopeOf(context), ...input }, { requestId: context.requestId });
  return { status: 201, body: JSON.parse(saved.json) as unknown };
};

/** The legacy customer record (document 1, Resources): no `payment_methods` key. */
const serializeLegacyCustomer = (customer: LegacyCustomer) => ({
  id: customer.id,
  pay_system: customer.paySystem,
  customer_id: customer.customerId,
  cards: customer.cards.map((card) => ({ id: card.id, card_last4: card.cardLast4 })),
});

/** GET /user/cards: `{items, paginator}` (document 1 conventions); ADR 0124. */
export const listCards: Handler<'member', z.output<typeof pageRequest>> = async (context, page, { legacySources }) => {
  const result = await legacySources.listCards(
    { scope: scopeOf(context), query: toPageQuery(page) },
    { requestId: context.requestId, idempotent: true },
  );
  return {
    body: {
      items: result.items.map((card) => ({
        id: card.id,
        card_id: card.cardId,
        card_brand: card.cardBrand,
        card_country: card.cardCountry,
        card_last4: card.cardLast4,
        expiration_date: card.expirationDate,
        customer_id: card.customerId,
        pay_system: card.paySystem,
        default: card.default,
      })),
      paginator: serializePaginator(result.paginator),
    },
  };
};

/** GET /user/cardprovider/customers: `{items: [legacy customer record]}`, no pagination. */
export const listLegacyCustomers: Handler<'member'> = async (context, _input, { legacySources }) => {
  const result = await legacySources.listLegacyCustomers(scopeOf(context), { requestId: context.requestId, idempotent: true });
  return { body: { items: result.items.map(serializeLegacyCustomer) } };
};

export const customerRequest = z.object({ params: z.object({ id: pathId(customerNotFound) }) }).transform(({ params }) => params);

/** POST /user/cardprovider/customer/{id}/attach: 200 with the legacy customer record. */
export const attachLegacyCustomer: Handler<'member', { id: number }> = async (context, { id }, { legacySources }) => ({
  body: serializeLegacyCustomer(
    await legacySources.attachLegacyCustomer({ scope: scopeOf(context), id }, { requestId: context.requestId }),
  ),
});

/** DELETE /user/cardprovider/customer/{id}: the local record only; `{result: true}`. */
export const deleteLegacyCustomer: Handler<'member', { id: number }> = async (context, { id }, { legacySources }) => {
  await legacySources.deleteLegacyCustomer({ scope: scopeOf(context), id }, { requestId: context.requestId });
  return { body: { result: true } };
};

/** POST /user/card/attempt-attach: 200 `{attempts, limit, window_seconds}`, or 429 (ADR 0125). */
export const recordCardAttachAttempt: Handler<'member'> = async (context, _input, { legacySources }) => {
  const result = await legacySources.recordCardAttachAttempt(scopeOf(context), { requestId: context.requestId });
  return { body: { attempts: result.attempts, limit: result.limit, window_seconds: result.windowSeconds } };
};
