import { defineError } from '@masthead/core/errors';

/** Errors about the request itself, before any operation reads it (document 1, A). */

/** A body the operation requires is missing, malformed or not a JSON object. */
export const bodyNotJsonObject = defineError({ status: 400, code: 'incorrect_data', description: 'The body must be a JSON object' });

/** The identity-provider operations' wording of the same (document 1, A). */
export const idpBodyNotJson = defineError({ status: 400, code: 'incorrect_data', description: 'body must be JSON' });

/** The body exceeds the gateway's BODY_LIMIT (config.ts), found while reading it. */
export const requestTooLarge = defineError(
  { status: 413, code: 'request_too_large', description: 'The request body exceeds <limit>' },
  (limit: string) => ({ description: `The request body exceeds ${limit}` }),
);

/** The body exceeds the limit of express's own parser. */
export const bodyTooLarge = defineError({ status: 413, code: 'request_too_large', description: 'The request body is too large' });

/** The router could not percent-decode a path parameter: the client's mistake, not ours. */
export const malformedPath = defineError({
  status: 400,
  code: 'malformed_path',
  description: 'The request path is not valid percent-encoding',
});

/** No route of the table serves the method and path. */
export const noRoute = defineError(
  { status: 404, code: 'route_not_found', description: 'No route serves <method> <path>' },
  (method: string, path: string) => ({ description: `No route serves ${method} ${path}` }),
);

/** The request's headers exceed Node's limit (16 KiB in all): refused before any route runs. */
export const headersTooLarge = defineError({ status: 431, code: 'headers_too_large', description: 'The request headers are too large' });

/** Not an HTTP request Node can parse (a malformed request line or header). */
export const malformedRequest = defineError({ status: 400, code: 'malformed_request', description: 'The request is not valid HTTP' });
