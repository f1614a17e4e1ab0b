import type { Request } from 'express';
import type { z } from 'zod';
import { invalidIdempotencyKey } from '../errors/billing.js';
import type { Handler } from '../routes/define.js';
import { serializePaymentOutcome, serializeQuote } from '../serializers/transactions.js';
import type { checkoutRequest } from './checkout-items.js';
import { scopeOf } from './payment-sources.js';

/** Checkout routes beyond the spec, as existing clients call them (docs/adr/0142). */

type Items = z.output<typeof checkoutRequest>;

/** POST /payment/calculate-price: `{total_price, currency, purchases[]}`. */
export const calculatePrice: Handler<'member', Items> = async (context, items, { checkout }) => ({
  body: serializeQuote(await checkout.calculatePrice({ scope: scopeOf(context), items })),
});

/** POST /promo-validation: the quote with its promo applied, or 409 invalid_promo. */
export const validatePromo: Handler<'member', Items> = async (context, items, { checkout }) => ({
  body: { result: true, ...serializeQuote(await checkout.validatePromo({ scope: scopeOf(context), items })) },
});

/** `Idempotency-Key`: up to 255 printable characters; absent keys the payment by its request ID. */
function idempotencyKeyOf(req: Request): string {
  const key = req.get('idempotency-key');
  if (key === undefined) return '';
  const trimmed = key.trim();
  if (!trimmed || trimmed.length > 255 || !/^[\x21-\x7e]+$/.test(trimmed)) throw invalidIdempotencyKey();
  return trimmed;
}

/** POST /payment: buys the items; a retry with the same Idempotency-Key answers the first outcome. */
export const pay: Handler<'member', Items> = async (context, items, { checkout }, req) => {
  const idempotencyKey = idempotencyKeyOf(req);
  const outcome = await checkout.pay({ scope: scopeOf(context), items, idempotencyKey, requestId: context.requestId });
  return { body: serializePaymentOutcome(outcome, context.caller.user.id) };
};
