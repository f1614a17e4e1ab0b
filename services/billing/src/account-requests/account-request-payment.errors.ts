import { defineError } from '@masthead/core/errors';

/** Thrown for a provider or configuration failure (document 2, J). */
export const accountRequestPaymentError = defineError(
  { status: 409, code: 'account_request_payment_error', description: 'Payment failed: <reason>' },
  (detail: string) => ({ description: `Payment failed: ${detail}` }),
);
