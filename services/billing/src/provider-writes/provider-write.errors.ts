import { httpError } from '@masthead/core/errors';

/**
 * Thrown when another request is writing the same provider object and has not finished within
 * the wait: the caller's retry will find its result. Operations map it to their own code.
 */
export const providerWriteInProgress = () =>
  httpError(409, 'provider_write_in_progress', 'The same request is still being processed; retry shortly');
