import { fieldError, httpError } from '@masthead/core/errors';

/** Thrown by CreateAccountRequest with every invalid field (document 2, J: 409 error_fields). */
export const invalidAccountRequest = (fields: Record<string, string>) => fieldError(fields);

/** Thrown when saving the record fails (document 2, J; the record may already be saved). */
export const accountRequestCreateError = () => httpError(409, 'account_request_create_error', 'The account request could not be saved');

/** Thrown by the billing-facing reads for an unknown record ID. */
export const accountRequestNotExists = () => httpError(404, 'account_request_not_exists', 'Account request not found');
