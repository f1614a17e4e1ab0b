import { defineError } from '@masthead/core/errors';

// Invalid fields are `fieldError` (409 error_fields); account_request_not_exists and the 406
// incorrect_data are checked by the gateway too and live in @masthead/core/errors.

/** Thrown when saving the record fails (document 2, J; the record may already be saved). */
export const accountRequestCreateError = defineError({
  status: 409,
  code: 'account_request_create_error',
  description: 'The account request could not be saved',
});
