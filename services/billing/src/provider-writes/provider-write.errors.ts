import { defineError } from '@masthead/core/errors';

/**
 * Thrown when another request is writing the same provider object and has not finished within
 * the wait: the caller's retry will find its result. Operations map it to their own code.
 */
export const providerWriteInProgress = defineError({
  status: 409,
  code: 'provider_write_in_progress',
  description: 'The same request is still being processed; retry shortly',
});

/**
 * Thrown by a write whose key was called off for good (an operator wrote off what it would have
 * paid, docs/adr/0223): nothing is written. Operations map it to their own code.
 */
export const providerWriteCalledOff = defineError({
  status: 409,
  code: 'provider_write_called_off',
  description: 'The write was called off for good; nothing is written',
});
