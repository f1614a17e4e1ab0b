import { httpError } from '@masthead/core/errors';

/**
 * Errors of the shared checks (document 1, Authentication rule 2 and the error table), raised
 * before any handler runs.
 */

/** The `resource` header is missing where required, or names no resource. */
export const resourceNotExists = () => httpError(404, 'resource_not_exists', 'Resource does not exist');

/** A guest calls a route that needs a signed-in caller. */
export const authFailed = () => httpError(401, 'auth_failed', 'Authentication required');

/** A signed-in caller whose role the route's ACL does not admit, or a key without the grant. */
export const accessDenied = () => httpError(403, 'access', 'Access denied');

/** An inactive account, or a relationship locked, suspended or removed, in member context. */
export const accessFail = () => httpError(401, 'auth_access_fail', 'Account is inactive or its access to this resource is locked');

/** The session token's term has ended. */
export const tokenExpired = () => httpError(401, 'token_expired', 'Session token has expired');

/** The session's refresh family was replayed or revoked. */
export const tokenCompromised = () => httpError(401, 'token_compromised', 'Session token is compromised');
