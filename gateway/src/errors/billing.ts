import { fieldError, httpError } from '@masthead/core/errors';

/** Billing errors the gateway raises itself, before the operation reaches billing. */

/** Setup-intents and save-intents: the JSON body is missing (document 1 D: 409). */
export const incorrectDataConflict = () => httpError(409, 'incorrect_data', 'The body must be JSON');

/** Setup-intents: `card_customer_id` missing or blank. The code keeps its quote characters. */
export const invalidCustomerId = () => httpError(409, '"invalid_customer_id"', 'card_customer_id is required');

/** Save-intents: `setup_intent.payment_method` missing or blank (docs/adr/0122). */
export const invalidPaymentMethod = () => httpError(409, 'invalid_payment_method', 'setup_intent.payment_method is required');

/** `{source_type}/{id}` of /user/payment-sources names no source. */
export const paymentSourceNotFound = () => httpError(404, 'payment_source_not_found', 'Payment source not found');

/** Account requests: the body is not a truthy JSON object (document 2 J: 406). */
export const incorrectDataNotAcceptable = () => httpError(406, 'incorrect_data', 'The body must be JSON');

/** POST /account-requests-payment: `account_id` or the token missing (document 2 J). */
export const paymentFieldsMissing = (fields: Record<string, string>) => fieldError(fields, 409);

/** POST /account-requests-payment: `account_id` names no record (no numeric validation). */
export const accountRequestNotExists = () => httpError(404, 'account_request_not_exists', 'Account request not found');
