import { httpError } from '@masthead/core/errors';

/** A code field that is missing, blank or not text. */
export const invalidCode = () => httpError(409, 'invalid_code', 'code is required');

/** Unknown, expired, used, other-purpose or other-resource code: all answered alike. */
export const codeFailed = () => httpError(400, 'code_failed', 'The code is invalid or has expired');
