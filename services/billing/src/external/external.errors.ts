import { defineError } from '@masthead/core/errors';

/** Document 2 I: no external transaction of that store ID in the resource (or not the given member's). */
export const getTransactionError = defineError({ status: 404, code: 'get_transaction_error', description: 'Transaction not found' });

/** The member named by `user_id` does not exist or has no relationship with the resource. */
export const externalUserNotFound = defineError({
  status: 404,
  code: 'user_not_found',
  description: 'No member of that ID in this resource',
});

/** The store transaction ID is recorded already, for another member or another Pricing. */
export const externalTransactionExists = defineError({
  status: 409,
  code: 'external_transaction_exists',
  description: 'This store transaction is recorded for another member or Pricing',
});

/** A refund larger than what is left to refund, or not positive. */
export const invalidRefundAmount = defineError({
  status: 409,
  code: 'invalid_amount',
  description: 'amount must be positive and at most what is not refunded yet',
});
