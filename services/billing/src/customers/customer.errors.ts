import { httpError } from '@masthead/core/errors';

/**
 * Thrown by read-or-create of the modern customer when the resource has no secret key for its
 * mode or the provider fails (the setup-intents sibling uses 409 for the same causes).
 */
export const customerProviderError = (detail: string) =>
  httpError(409, 'cardprovider_customer_error', `Card provider customer unavailable: ${detail}`);
