import { httpError } from '@masthead/core/errors';

/** Accounts errors the gateway raises itself. */

/** `{id}` of /languages/{id} is no language ID (digits, not zero). */
export const languageNotFound = () => httpError(404, 'language_not_found', 'Language not found');
