import { defineError } from '@masthead/core/errors';

/** Thrown by the transaction list for a filter that is not an object or names an unknown field (document 2 G). */
export const invalidTransactionFilter = defineError(
  { status: 400, code: 'invalid_filter', description: 'filter: <reason>' },
  (reason: string) => ({ description: `filter: ${reason}` }),
);

/** Thrown by the transaction list for a `created_at` filter that is no date or range of dates (document 2 G). */
export const invalidFilterDate = defineError({
  status: 400,
  code: 'invalid_filter_date',
  description: 'created_at takes a date (YYYY-MM-DD or ISO 8601) or {from, to}',
});

/** Thrown by the transaction list for a value its field does not take (document 2 G: invalid_<field>). */
export const invalidFilterValue = defineError(
  { status: 400, code: 'invalid_<field>', description: '<field> takes <what>' },
  (field: string, what: string) => ({ code: `invalid_${field}`, description: `${field} takes ${what}` }),
);

/** Thrown by POST /user/transactions/{id}/receipt for a transaction that took no money (docs/adr/0143). */
export const receiptNotAvailable = defineError({
  status: 409,
  code: 'receipt_not_available',
  description: 'Only a succeeded or refunded transaction has a receipt',
});

/** Thrown by GET /user/transactions/{id}/receipt/download before a receipt was requested (docs/adr/0143). */
export const receiptNotExists = defineError({
  status: 404,
  code: 'receipt_not_exists',
  description: 'No receipt was requested for this transaction',
});
