import { defineError } from '@masthead/core/errors';

/** Operators: no refund is owed under that key (made meanwhile, or never owed). */
export const owedRefundNotFound = defineError({
  status: 404,
  code: 'owed_refund_not_found',
  description: 'No refund is owed under that key',
});

/**
 * Operators: the refund is being made on the card provider right now (by the pass or a retry) and
 * did not finish within the wait; the write-off is refused. Repeat it: it then answers
 * `owed_refund_already_made`, or writes the refund off if that attempt failed (docs/adr/0223).
 */
export const owedRefundInProgress = defineError({
  status: 409,
  code: 'owed_refund_in_progress',
  description: 'The refund is being made on the card provider; repeat the write-off shortly',
});

/** Operators: the card provider holds the refund already, so it cannot be written off (docs/adr/0223). */
export const owedRefundAlreadyMade = defineError({
  status: 409,
  code: 'owed_refund_already_made',
  description: 'The refund was made on the card provider; it cannot be written off',
});

/** Operators: the refund was written off (paid back outside the card provider) and is never made (docs/adr/0223). */
export const owedRefundWrittenOff = defineError({
  status: 409,
  code: 'owed_refund_written_off',
  description: 'The refund was written off by an operator; it is not made',
});
