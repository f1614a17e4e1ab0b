import { defineError } from '@masthead/core/errors';

// Document 1 D, legacy customer creation and confirm-payment-method: their own 406/500 codes.
// incorrect_data 406, incorrect_customer_id, incorrect_token and customer_not_found are checked by
// the gateway too and live in @masthead/core/errors.

/** POST /user/cardprovider/customer: the provider refused (an existing customer ID included). */
export const incorrectCustomer = defineError(
  { status: 500, code: 'incorrect_customer', description: 'Customer not created: <reason>' },
  (detail: string) => ({ description: `Customer not created: ${detail}` }),
);

/** POST /user/cardprovider/token: the provider does not know the token. */
export const incorrectRetrieveToken = defineError(
  { status: 406, code: 'incorrect_retrieve_token', description: 'Token not found: <reason>' },
  (detail: string) => ({ description: `Token not found: ${detail}` }),
);

/** POST /user/cardprovider/token: the provider refused the customer. */
export const incorrectCreatePaymentCustomer = defineError(
  { status: 406, code: 'incorrect_create_payment_customer', description: 'Customer not created: <reason>' },
  (detail: string) => ({ description: `Customer not created: ${detail}` }),
);

/** POST /user/cardprovider/token: the customer's cards could not be read. */
export const incorrectRetrieveCard = defineError(
  { status: 406, code: 'incorrect_retrieve_card', description: 'Cards not read: <reason>' },
  (detail: string) => ({ description: `Cards not read: ${detail}` }),
);

/** Confirm: the customer or card named is not the member's, checked before the attachment (messages concatenated, document 1 D). */
export const paymentMethodSavingErrors = defineError(
  { status: 406, code: 'payment_method_saving_errors', description: '<the field messages, joined>' },
  (messages: string[]) => ({ description: messages.join('; ') }),
);

/** Confirm: the method is not the member's to attach (docs/adr/0230), or the provider refused to read or attach it. */
export const confirmPaymentMethodError = defineError(
  { status: 406, code: 'confirm_cardprovider_payment_method_error', description: 'Payment method not confirmed: <reason>' },
  (detail: string) => ({ description: `Payment method not confirmed: ${detail}` }),
);

/** POST /user/card: the provider refused the card or failed (docs/adr/0124). */
export const cardAddError = defineError(
  { status: 406, code: 'card_add_error', description: 'Card not added: <reason>' },
  (detail: string) => ({ description: `Card not added: ${detail}` }),
);
