import { defineError } from '@masthead/core/errors';

/** POST /payment: an `Idempotency-Key` header that is blank, longer than 255 characters or not printable ASCII. */
export const invalidIdempotencyKey = defineError({
  status: 409,
  code: 'invalid_idempotency_key',
  description: 'Idempotency-Key must be 1–255 printable ASCII characters',
});
