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
export const paymentFieldsMissing = (fields: Record<string, string>) => fieldError(fields);

/** POST /account-requests-payment: `account_id` names no record (no numeric validation). */
export const accountRequestNotExists = () => httpError(404, 'account_request_not_exists', 'Account request not found');

/** Legacy creation and confirm: the body is not a JSON object (document 1 D: 406). */
export const legacyIncorrectData = () => httpError(406, 'incorrect_data', 'The body must be a JSON object');

/** POST /user/cardprovider/customer: `customer_id` (a provider token) missing or blank. */
export const incorrectCustomerId = () => httpError(406, 'incorrect_customer_id', 'customer_id must be a provider token');

/** POST /user/cardprovider/token: `token` missing or blank. */
export const incorrectToken = () => httpError(406, 'incorrect_token', 'token must be a provider token');

/** `{id}` of /user/cardprovider/customer/{id} names no customer ID. */
export const customerNotFound = () => httpError(404, 'customer_not_found', 'Customer not found');
