import { incorrectDataConflict, invalidItems } from '@masthead/core/errors';
import type { CheckoutItem } from '@masthead/proto/billing/checkout';
import { z } from 'zod';
import { raise } from '../http/request.js';
import { documentedAs } from '../openapi/hints.js';

/** The `item_type` of a Pricing (ADR 0142): the API calls a Pricing a "subscription". */
export const SUBSCRIPTION_ITEM_TYPE = 'subscription';
/** A `gift` Pricing bought for someone else, and event tickets (ADR 0142). */
export const GIFT_ITEM_TYPE = 'gift';
export const TICKET_ITEM_TYPE = 'ti_ticket';

/** At most this many items in one checkout: a payment is one provider call; the cap bounds it. */
const MAX_ITEMS = 20;

/** A local source ID: a positive integer, or its digits as text; anything else counts as absent. */
const sourceId = documentedAs(
  z.unknown().transform((value): number => {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    return /^\d{1,9}$/.test(text) ? Number(text) : 0;
  }),
  z.union([z.number().int(), z.string()]),
);

/** `quantity`: absent or null is 1; a whole number (or its digits as text) as sent; anything else -1 (billing refuses it). */
const quantity = documentedAs(
  z.unknown().transform((value): number => {
    if (value === undefined || value === null) return 1;
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    return /^\d{1,9}$/.test(text) ? Number(text) : -1;
  }),
  z.union([z.number().int(), z.string()]),
);

/** Text, or a number written as text (`item_key: 12`); anything else is ''. */
const textOrNumber = documentedAs(
  z.unknown().transform((value) => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '')),
  z.union([z.string(), z.number()]),
);

/** One item as billing gets it; unknown keys are ignored. */
const checkoutItem = z
  .object({
    item_type: textOrNumber,
    item_key: textOrNumber,
    user_card_id: sourceId,
    payment_method_id: sourceId,
    item_resource: textOrNumber,
    promo: textOrNumber,
    quantity,
  })
  .transform((item): CheckoutItem => ({
    itemType: item.item_type,
    itemKey: item.item_key,
    userCardId: item.user_card_id,
    paymentMethodId: item.payment_method_id,
    itemResource: item.item_resource,
    promo: item.promo,
    quantity: item.quantity,
  }));

/**
 * The checkout body `{items: [{item_type, item_key, user_card_id | payment_method_id,
 * item_resource, promo, quantity}]}`, JSON only (a form cannot carry the array): 409 incorrect_data for no
 * JSON object, 409 invalid_items for no non-empty array of objects. Billing judges the values
 * (item type, key, source, promo).
 */
export const checkoutRequest = documentedAs(
  z.object({ form: z.boolean(), json: z.record(z.unknown()).optional() }).transform(({ form, json }, ctx) => {
    if (form || !json) return raise(ctx, incorrectDataConflict);
    const items = json['items'];
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) return raise(ctx, invalidItems);
    if (!items.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))) return raise(ctx, invalidItems);
    // Every field decoder takes any value: an object always decodes.
    return items.map((item) => checkoutItem.parse(item));
  }),
  z.object({ json: z.object({ items: z.array(checkoutItem).min(1).max(MAX_ITEMS) }) }),
);
