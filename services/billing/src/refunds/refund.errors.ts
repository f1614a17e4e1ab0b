import { defineError } from '@masthead/core/errors';

/** Operators: no refund is owed under that key (made meanwhile, or never owed). */
export const owedRefundNotFound = defineError({
  status: 404,
  code: 'owed_refund_not_found',
  description: 'No refund is owed under that key',
});
