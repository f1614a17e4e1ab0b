import { httpError } from '@masthead/core/errors';

/** Errors about the request's encoding, before any operation reads it (document 1, A). */

/** A body the operation requires is missing, malformed or not a JSON object. */
export const incorrectData = (description = 'The body must be a JSON object') => httpError(400, 'incorrect_data', description);

/** The body exceeds the gateway's BODY_LIMIT (config.ts). */
export const requestTooLarge = (limit: string) => httpError(413, 'request_too_large', `The request body exceeds ${limit}`);
