import { defineError } from '@masthead/core/errors';

/** Thrown by SetCaptchaSettings (operator) for a key with whitespace or control characters, or too long. */
export const invalidCaptchaKey = defineError(
  { status: 400, code: 'invalid_<field>', description: '<field> must be 1 to 256 printable characters without spaces' },
  (field: 'public_key' | 'secret_key') => ({
    code: `invalid_${field}`,
    description: `${field} must be 1 to 256 printable characters without spaces`,
  }),
);
