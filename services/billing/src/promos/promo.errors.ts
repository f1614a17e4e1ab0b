import { defineError } from '@masthead/core/errors';

/** Checkout: the code is not one of the resource's (or was switched off). */
export const promoNotFound = defineError({ status: 409, code: 'invalid_promo', description: 'Promo code not found' });

/** Checkout: the code's validity window has not started yet. */
export const promoNotStarted = defineError({ status: 409, code: 'invalid_promo', description: 'Promo code is not valid yet' });

/** Checkout: the code's validity window is over. */
export const promoExpired = defineError({ status: 409, code: 'invalid_promo', description: 'Promo code has expired' });

/** Checkout: every use of a limited code is taken. */
export const promoExhausted = defineError({ status: 409, code: 'invalid_promo', description: 'Promo code has no uses left' });

/** Checkout: the code is limited to other Pricings, or is an amount in another currency. */
export const promoNotApplicable = defineError({
  status: 409,
  code: 'invalid_promo',
  description: 'Promo code does not apply to this item',
});

/** Operator call: a malformed promo code definition. */
export const invalidPromoDefinition = defineError(
  { status: 400, code: 'invalid_promo_code', description: '<reason>' },
  (reason: string) => ({ description: reason }),
);

/** Operator call: the resource has a code of that name already. */
export const promoCodeExists = defineError({
  status: 409,
  code: 'promo_code_exists',
  description: 'The resource has a promo code of that name',
});

/** Operator call: no promo code of that ID. */
export const promoCodeNotFound = defineError({ status: 404, code: 'promo_code_not_found', description: 'Promo code not found' });
