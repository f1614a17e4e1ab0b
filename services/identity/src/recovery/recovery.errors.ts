import { defineError } from '@masthead/core/errors';

/** Thrown when a mailed code (or an authorization code to exchange) is missing or empty. */
export const invalidCode = defineError({ status: 409, code: 'invalid_code', description: 'code is required' });

/** Thrown for an unknown, expired, used, other-purpose or other-resource code: all answered alike. */
export const codeFailed = defineError({ status: 400, code: 'code_failed', description: 'The code is invalid or has expired' });

/** Thrown by PUT /user/email when the current password is missing or does not match. */
export const emailChangePasswordWrong = defineError({
  status: 409,
  code: 'invalid_password',
  description: 'The current password is required and must match',
});

/** Thrown by PUT /user/email when the new address is the account's own. */
export const emailUnchanged = defineError({ status: 409, code: 'invalid_email', description: 'This is already the account email' });
