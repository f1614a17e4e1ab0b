import { defineError } from '@masthead/core/errors';

/** Thrown for a provider or configuration failure (document 2, J), or a token used already (docs/adr/0230). */
export const accountRequestPaymentError = defineError(
  { status: 409, code: 'account_request_payment_error', description: 'Payment failed: <reason>' },
  (detail: string) => ({ description: `Payment failed: ${detail}` }),
);
