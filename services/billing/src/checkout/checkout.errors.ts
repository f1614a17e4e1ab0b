import { defineError } from '@masthead/core/errors';

/* Checkout (POST /payment/calculate-price, /promo-validation, /payment; docs/adr/0142). 409 like
   the card-provider siblings of document 1 D. */

/** An item's `item_type` is none that checkout sells. */
export const invalidItemType = defineError(
  { status: 409, code: 'invalid_item_type', description: 'item_type must be one of <types>' },
  (types: string[]) => ({ description: `item_type must be one of ${types.join(', ')}` }),
);

/** An item's `item_key` names nothing the member can buy here (unknown, inactive, another type). */
export const invalidItemKey = defineError({ status: 409, code: 'invalid_item_key', description: 'item_key names nothing for sale here' });

/** An item's `item_resource` is not the resource of the request. */
export const invalidItemResource = defineError({
  status: 409,
  code: 'invalid_item_resource',
  description: 'item_resource must be the resource of the request',
});

/** The member holds an active membership of the Pricing already. */
export const alreadySubscribed = defineError({
  status: 409,
  code: 'already_subscribed',
  description: 'The member holds this subscription already',
});

/** Another checkout of the member is buying the same item right now. */
export const purchaseInProgress = defineError({
  status: 409,
  code: 'purchase_in_progress',
  description: 'Another payment for this item is in progress',
});

/** The items are priced in different currencies: one payment takes one currency. */
export const mixedCurrencies = defineError({ status: 409, code: 'mixed_currencies', description: 'All items must be in one currency' });

/** POST /promo-validation without any `promo`. */
export const promoRequired = defineError({ status: 409, code: 'invalid_promo', description: 'promo is required' });

/** The items name different saved sources, or one the member does not have here, or none is saved. */
export const invalidPaymentSource = defineError(
  { status: 409, code: 'invalid_payment_source', description: '<reason>' },
  (reason: string) => ({ description: reason }),
);

/** The provider declined or failed the payment: the transaction is `failed`, nothing was granted. */
export const paymentFailed = defineError(
  { status: 409, code: 'payment_failed', description: '<the provider’s reason>' },
  (reason: string) => ({ description: reason }),
);

/** The provider could not be reached in time or the resource has no key for its mode. */
export const cardProviderPaymentError = defineError(
  { status: 409, code: 'cardprovider_payment_error', description: 'Card provider unavailable: <reason>' },
  (reason: string) => ({ description: `Card provider unavailable: ${reason}` }),
);

/** The same Idempotency-Key came with other items or another source. */
export const idempotencyKeyReused = defineError({
  status: 409,
  code: 'idempotency_key_reused',
  description: 'This Idempotency-Key was used for another request',
});

/**
 * An earlier attempt with this Idempotency-Key ended without a payment and gave its tickets back
 * (another item of its cart could not be reserved): the key cannot reserve them again.
 */
export const purchaseReleased = defineError({
  status: 409,
  code: 'purchase_released',
  description: 'An earlier attempt with this Idempotency-Key gave its items back; use a new key',
});
