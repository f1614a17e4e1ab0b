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
