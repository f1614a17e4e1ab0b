import { resourceNotExists, userNotExist } from '@masthead/core/errors';
import type { Credentials } from '@masthead/proto/identity';
import { type z } from 'zod';
import { fromFields, jsonTrue, text, truthy } from '../http/request.js';
import type { Handler } from '../routes/define.js';

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
  // Beyond the spec (docs/adr/0246): existing clients ignore it.
  if (credentials.entitlementToken) body['entitlement_token'] = credentials.entitlementToken;
  return body;
}

/**
 * POST /authorization/refresh (document 1, section B), JSON or form (form wins). Only the JSON
 * boolean true keeps the record (`reusable_refresh`); the `with_*` flags are truthy.
 */
export const refreshRequest = fromFields({
  refresh_token: text,
  response_type: text,
  reusable_refresh: jsonTrue,
  redirect_uri: text,
  with_has_resource_password: truthy,
  with_idp_token: truthy,
  with_idp_custom_token: truthy,
});

/** The default mode, `code_and_token`, named or left blank; it needs the `resource` header. */
const isDefaultMode = (responseType: string) => ['', 'code_and_token'].includes(responseType.trim());

/** POST /authorization/refresh (document 1, section B). */
export const refresh: Handler<'guest', z.output<typeof refreshRequest>> = async (context, fields, { identity }) => {
  // Document 1 B, the `resource` row: "needed for the default mode" (ADR 0105).
  if (!context.resource && isDefaultMode(fields.response_type)) throw resourceNotExists();
  const credentials = await identity.refresh({
    resourceId: context.resource?.id ?? 0,
    refreshToken: fields.refresh_token,
    responseType: fields.response_type,
    reusableRefresh: fields.reusable_refresh,
    redirectUri: fields.redirect_uri,
    withHasResourcePassword: fields.with_has_resource_password,
    withIdpToken: fields.with_idp_token,
    withIdpCustomToken: fields.with_idp_custom_token,
  });
  // The provider fields are omitted where no provider is enabled or the member is not linked
  // ("may be omitted on provider failure", document 1, B).
  return { body: serializeCredentials(credentials) };
};

/** POST /oauth/token: exchanges an authorization code from sign-in or refresh. */
export const exchangeCodeRequest = fromFields({ code: text, redirect_uri: text });

export const exchangeCode: Handler<'guestWithResource', z.output<typeof exchangeCodeRequest>> = async (context, fields, { identity }) => {
  const credentials = await identity.exchangeCode({ resourceId: context.resource.id, code: fields.code, redirectUri: fields.redirect_uri });
  return { body: serializeCredentials(credentials) };
};

/** GET /logout: revokes the session the token belongs to. */
export const logout: Handler<'memberOptionalResource'> = async (context, _input, { identity }) => {
  await identity.logout({ sessionId: context.caller.sessionId });
  return { body: { result: true } };
};

/** POST /cleanup-refresh: removes the user's refresh records; sessions stay. */
export const cleanupRefresh: Handler<'guestOrMember'> = async (context, _input, { identity }) => {
  if (!context.caller.user) throw userNotExist();
  await identity.cleanupRefresh({ userId: context.caller.user.id });
  return { body: { msg: { result: true, msg: 'Refresh tokens removed' } } };
};
