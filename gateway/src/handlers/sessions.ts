import { httpError } from '@masthead/core/errors';
import type { Credentials } from '@masthead/proto/identity';
import { bodyFields, stringField } from '../http/body.js';
import type { RouteHandler } from './types.js';

/**
 * "Truthy" as the spec's flags use it (`with_*`): anything but absent, null, false, 0, '' and
 * '0', so that form fields (`1`, `true`) and JSON booleans both turn a flag on.
 */
const truthy = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== false && value !== 0 && value !== '' && value !== '0';

/** Authentication fields only (no user profile), as refresh and code exchange return them. */
export function serializeCredentials(credentials: Credentials): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (credentials.token) {
    body['token_type'] = 'bearer';
    body['token'] = credentials.token;
    body['refresh_token'] = credentials.refreshToken;
  }
  body['session_id'] = credentials.sessionId;
  body['expires'] = credentials.expires;
  if (credentials.code) body['code'] = credentials.code;
  if (credentials.redirectUri) body['redirect_uri'] = credentials.redirectUri;
  // Hyphenated, unlike every other field: kept because the API says so.
  if (credentials.hasResourcePassword !== undefined) body['has-resource-password'] = credentials.hasResourcePassword;
  // Hyphenated too, like the request header the ID token goes back in.
  if (credentials.idpToken) body['idp-token'] = credentials.idpToken;
  if (credentials.idpCustomToken) body['idp-custom-token'] = credentials.idpCustomToken;
  return body;
}

/** POST /authorization/refresh (document 1, section B). */
export const refresh: RouteHandler = async (context, req, { identity }) => {
  const fields = bodyFields(req);
  const credentials = await identity.refresh({
    resourceId: context.resource?.id ?? 0,
    refreshToken: stringField(fields, 'refresh_token'),
    responseType: stringField(fields, 'response_type'),
    // Only the JSON boolean true keeps the record; a form string never does (document 1).
    reusableRefresh: fields['reusable_refresh'] === true,
    redirectUri: stringField(fields, 'redirect_uri'),
    withHasResourcePassword: truthy(fields['with_has_resource_password']),
    withIdpToken: truthy(fields['with_idp_token']),
    withIdpCustomToken: truthy(fields['with_idp_custom_token']),
  });
  // The provider fields are omitted where no provider is enabled or the member is not linked
  // ("may be omitted on provider failure", document 1, B).
  return { body: serializeCredentials(credentials) };
};

/** POST /oauth/token: exchanges an authorization code from sign-in or refresh. */
export const exchangeCode: RouteHandler = async (context, req, { identity }) => {
  const fields = bodyFields(req);
  const credentials = await identity.exchangeCode({
    resourceId: context.resource!.id,
    code: stringField(fields, 'code'),
    redirectUri: stringField(fields, 'redirect_uri'),
  });
  return { body: serializeCredentials(credentials) };
};

/** GET /logout: revokes the session the token belongs to. */
export const logout: RouteHandler = async (context, _req, { identity }) => {
  await identity.logout({ sessionId: context.caller.sessionId });
  return { body: { result: true } };
};

/** POST /cleanup-refresh: removes the user's refresh records; sessions stay. */
export const cleanupRefresh: RouteHandler = async (context, _req, { identity }) => {
  if (!context.caller.user) throw httpError(404, 'user_not_exist', 'User does not exist');
  await identity.cleanupRefresh({ userId: context.caller.user.id });
  return { body: { msg: { result: true, msg: 'Refresh tokens removed' } } };
};
