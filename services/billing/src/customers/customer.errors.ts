import { defineError } from '@masthead/core/errors';

/**
 * Thrown by read-or-create of the modern customer when the resource has no secret key for its
 * mode or the provider fails (the setup-intents sibling uses 409 for the same causes).
 */
export const customerProviderError = defineError(
  { status: 409, code: 'cardprovider_customer_error', description: 'Card provider customer unavailable: <reason>' },
  (detail: string) => ({ description: `Card provider customer unavailable: ${detail}` }),
);
