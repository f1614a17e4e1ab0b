import { httpError } from '@masthead/core/errors';

/** Document 1 D, legacy customer creation and confirm-payment-method: their own 406/500 codes. */

export const legacyIncorrectData = () => httpError(406, 'incorrect_data', 'The body must be a JSON object');
export const incorrectCustomerId = () => httpError(406, 'incorrect_customer_id', 'customer_id must be a provider token');
export const incorrectToken = () => httpError(406, 'incorrect_token', 'token must be a provider token');
/** POST /user/cardprovider/customer: the provider refused (an existing customer ID included). */
export const incorrectCustomer = (detail: string) => httpError(500, 'incorrect_customer', `Customer not created: ${detail}`);
export const incorrectRetrieveToken = (detail: string) => httpError(406, 'incorrect_retrieve_token', `Token not found: ${detail}`);
export const incorrectCreatePaymentCustomer = (detail: string) =>
  httpError(406, 'incorrect_create_payment_customer', `Customer not created: ${detail}`);
export const incorrectRetrieveCard = (detail: string) => httpError(406, 'incorrect_retrieve_card', `Cards not read: ${detail}`);
/** Confirm: the local save refused its fields (messages concatenated, document 1 D). */
export const paymentMethodSavingErrors = (messages: string[]) => httpError(406, 'payment_method_saving_errors', messages.join('; '));
export const confirmPaymentMethodError = (detail: string) =>
  httpError(406, 'confirm_cardprovider_payment_method_error', `Payment method not confirmed: ${detail}`);

/** `{id}` of /user/cardprovider/customer/{id} is not one of the member's customers. */
export const customerNotFound = () => httpError(404, 'customer_not_found', 'Customer not found');
