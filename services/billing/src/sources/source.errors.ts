import { httpError } from '@masthead/core/errors';

/** Thrown by setup-intents when the body is not a JSON object (document 1 D). */
export const incorrectData = (status = 409) => httpError(status, 'incorrect_data', 'The body must be JSON');

/** Thrown by setup-intents for a missing or empty `card_customer_id`; the code keeps its quotes. */
export const invalidCustomerId = () => httpError(409, '"invalid_customer_id"', 'card_customer_id is required');

/** Thrown by setup-intents when the customer is not the member's, or the provider fails. */
export const setupIntentError = (detail: string) =>
  httpError(409, 'cardprovider_setup_intent_error', `Setup intent not created: ${detail}`);

/** Thrown by save-intents for a missing `setup_intent.payment_method` (docs/adr/0122). */
export const invalidPaymentMethod = () => httpError(409, 'invalid_payment_method', 'setup_intent.payment_method is required');

/** Thrown by save-intents when the method has no customer or the provider fails (docs/adr/0122). */
export const saveIntentError = (detail: string) => httpError(409, 'cardprovider_save_intent_error', `Payment method not saved: ${detail}`);

/** Thrown by GET /user/payment-sources for a `pay-system` the validator refuses. */
export const invalidPaySystem = () => httpError(409, 'invalid_pay_system', 'Invalid pay-system');

/** Thrown by GET /user/payment-sources when reading the sources fails. */
export const userSourcesError = () => httpError(409, 'user_sources_error', 'Payment sources could not be read');

/** Thrown by the default-source and remove operations for a source that is not the member's. */
export const sourceNotFound = () => httpError(404, 'payment_source_not_found', 'Payment source not found');

/** Thrown by remove when the provider refuses to detach the method (docs/adr/0122). */
export const removeSourceError = (detail: string) => httpError(409, 'payment_source_remove_error', `Payment source not removed: ${detail}`);
