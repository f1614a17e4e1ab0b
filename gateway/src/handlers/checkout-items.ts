import { incorrectDataConflict, invalidItems } from '@masthead/core/errors';
import type { CheckoutItem } from '@masthead/proto/billing/checkout';
import { z } from 'zod';
import { raise } from '../http/request.js';

/** The `item_type` of a Pricing (ADR 0142): the API calls a Pricing a "subscription". */
export const SUBSCRIPTION_ITEM_TYPE = 'subscription';

/** At most this many items in one checkout: a payment is one provider call; the cap bounds it. */
const MAX_ITEMS = 20;

/** A local source ID: a positive integer, or its digits as text; anything else counts as absent. */
const sourceId = (value: unknown): number => {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,9}$/.test(text) ? Number(text) : 0;
};

/** Text, or a number written as text (`item_key: 12`); anything else is ''. */
const textOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');

/**
 * The checkout body `{items: [{item_type, item_key, user_card_id | payment_method_id,
 * item_resource, promo}]}`, JSON only (a form cannot carry the array): 409 incorrect_data for no
 * JSON object, 409 invalid_items for no non-empty array of objects. Unknown keys are ignored;
 * billing judges the values (item type, key, source, promo).
 */
export const checkoutRequest = z.object({ form: z.boolean(), json: z.record(z.unknown()).optional() }).transform(({ form, json }, ctx) => {
  if (form || !json) return raise(ctx, incorrectDataConflict);
  const items = json['items'];
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) return raise(ctx, invalidItems);
  if (!items.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))) return raise(ctx, invalidItems);
  return (items as Array<Record<string, unknown>>).map((item): CheckoutItem => ({
    itemType: textOf(item['item_type']),
    itemKey: textOf(item['item_key']),
    userCardId: sourceId(item['user_card_id']),
    paymentMethodId: sourceId(item['payment_method_id']),
    itemResource: textOf(item['item_resource']),
    promo: textOf(item['promo']),
  }));
});
