import type { SignInResponse } from '@masthead/proto/identity';
import { type z } from 'zod';
import type { RequestContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { fromFields, optionalText, text } from '../http/request.js';
import { serializeMembership, serializeMembershipChange } from '../serializers/catalog.js';
import { serializeTeam } from '../serializers/community.js';
import { serializeUser } from '../serializers/user.js';
import type { Handler } from '../routes/define.js';

/** How a sign-in wants its session delivered: `response_type`, `redirect_uri` (POST /authorization and its siblings). */
export const sessionFields = { response_type: text, redirect_uri: text };

/**
 * POST /authorization (document 1, section B). A field of the wrong type counts as missing,
 * which yields the operation's documented 409 from identity.
 */
export const signInRequest = fromFields({ email: text, password: text, ...sessionFields });

export const signIn: Handler<'guest', z.output<typeof signInRequest>> = async (context, fields, { identity }) => {
  const result = await identity.signIn({
    resourceId: context.resource?.id ?? 0,
    email: fields.email,
    password: fields.password,
    ...sessionRequest(context, fields),
  });
  return { body: serializeSessionResult(result) };
};

/** Where a sign-in comes from, with how it wants its session delivered. */
export const sessionRequest = (context: RequestContext, fields: { response_type: string; redirect_uri: string }) => ({
  responseType: fields.response_type,
  redirectUri: fields.redirect_uri,
  guestSession: context.headers.session,
  sourceType: context.headers.sourceType,
  ip: context.ip,
  userAgent: context.userAgent,
});

/** POST /registration: the same body as sign-in, with optional names. */
export const registrationRequest = fromFields({ email: text, password: text, first_name: optionalText, last_name: optionalText });

/** 201 because a member was created or joined; wrong-typed fields yield the documented 409s. */
export const register: Handler<'guestWithResource', z.output<typeof registrationRequest>> = async (context, fields, { identity }) => {
  const result = await identity.register({
    resourceId: context.resource.id,
    email: fields.email,
    password: fields.password,
    firstName: fields.first_name,
    lastName: fields.last_name,
    guestSession: context.headers.session,
    sourceType: context.headers.sourceType,
    ip: context.ip,
    userAgent: context.userAgent,
  });
  return { status: 201, body: serializeSessionResult(result) };
};

/** A body of one `email` field (JSON or form): email validation and the mailed-code requests. */
export const emailRequest = fromFields({ email: text });

/** POST /email-validation: `{result: true}` when the email can register in this resource. */
export const validateEmail: Handler<'guestWithResource', z.output<typeof emailRequest>> = async (context, { email }, { identity }) => {
  await identity.validateEmail({ resourceId: context.resource.id, email, ip: context.ip });
  return { body: { result: true } };
};

/** The session result (document 1, Resources): user projection at top level plus credentials. */
export function serializeSessionResult(result: SignInResponse): Record<string, unknown> {
  const body: Record<string, unknown> = { ...serializeUser(result.user!) };
  if (result.token) {
    // `bearer` is a fixed label; the token still travels in the `token` header.
    body['token_type'] = 'bearer';
    body['token'] = result.token;
    body['refresh_token'] = result.refreshToken;
  }
  body['session_id'] = result.sessionId;
  body['expires'] = result.expires;
  body['subscriptions'] = result.subscriptions.map((membership) => serializeMembership(membership, false));
  body['teams'] = result.teams.map(serializeTeam);
  if (result.code) body['code'] = result.code;
  if (result.redirectUri) body['redirect_uri'] = result.redirectUri;
  // Beyond the spec (docs/adr/0246): existing clients ignore it.
  if (result.entitlementToken) body['entitlement_token'] = result.entitlementToken;
  return body;
}

/** GET /user: the user projection at top level; resource views only with a resource. */
export const getUser: Handler<'memberOptionalResource'> = async (context, _input, { identity }) => {
  const profile = await identity.getProfile(
    { userId: context.caller.user.id, resourceId: context.resource?.id ?? 0 },
    { idempotent: true },
  );
  const body: Record<string, unknown> = serializeUser(profile.user!);
  const view = profile.resourceView;
  if (view) {
    const admin = isAdminRole(context.caller.role);
    body['subscriptions'] = view.subscriptions.map((membership) => serializeMembership(membership, admin));
    body['teams'] = view.teams.map(serializeTeam);
    body['subscriptions_history'] = view.subscriptionsHistory.map(serializeMembershipChange);
    body['assigned_tickets'] = view.assignedTickets;
  }
  return { body };
};
