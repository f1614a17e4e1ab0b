import { defineError } from '@masthead/core/errors';

// The codes the gateway checks first (incorrect_data 409, "invalid_customer_id",
// invalid_payment_method, payment_source_not_found) live in @masthead/core/errors.

/** Thrown by setup-intents when the customer is not the member's, or the provider fails. */
export const setupIntentError = defineError(
  { status: 409, code: 'cardprovider_setup_intent_error', description: 'Setup intent not created: <reason>' },
  (detail: string) => ({ description: `Setup intent not created: ${detail}` }),
);

/**
 * Thrown by save-intents when the method is not attached to a customer of the member's (unknown,
 * another's, or none alike: docs/adr/0230) or the provider fails (docs/adr/0122).
 */
export const saveIntentError = defineError(
  { status: 409, code: 'cardprovider_save_intent_error', description: 'Payment method not saved: <reason>' },
  (detail: string) => ({ description: `Payment method not saved: ${detail}` }),
);

/** Thrown by GET /user/payment-sources for a `pay-system` the validator refuses. */
export const invalidPaySystem = defineError({ status: 409, code: 'invalid_pay_system', description: 'Invalid pay-system' });

/** Thrown by GET /user/payment-sources when reading the sources fails. */
export const userSourcesError = defineError({ status: 409, code: 'user_sources_error', description: 'Payment sources could not be read' });

/** Thrown by remove when the provider refuses to detach the method (docs/adr/0122). */
export const removeSourceError = defineError(
  { status: 409, code: 'payment_source_remove_error', description: 'Payment source not removed: <reason>' },
  (detail: string) => ({ description: `Payment source not removed: ${detail}` }),
);
