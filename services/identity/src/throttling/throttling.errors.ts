import { defineError } from '@masthead/core/errors';

/** Thrown when an account (keyed by its normalized email) has had too many failed sign-ins in the window. */
export const tooManyAttempts = defineError({
  status: 429,
  code: 'too_many_attempts',
  description: 'Too many failed sign-ins for this account; retry later',
});

/** Thrown when one address has used up its hourly allowance of an operation (AddressLimiter). */
export const addressLimited = defineError({
  status: 429,
  code: 'too_many_requests',
  description: 'Too many requests from this address; retry later',
});
