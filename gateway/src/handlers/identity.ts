import type { SignInResponse } from '@masthead/proto/identity';
import type { RequestContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { bodyFields, stringField } from '../http/body.js';
import { serializeMembership, serializeMembershipChange } from '../serializers/catalog.js';
import { serializeTeam } from '../serializers/community.js';
import { serializeUser } from '../serializers/user.js';
import type { RouteHandler } from './types.js';

/**
 * POST /authorization (document 1, section B). Body fields arrive as JSON or form (form wins);
 * a field of the wrong type counts as missing, which yields the operation's documented 409.
 */
export const signIn: RouteHandler = async (context, req, { identity }) => {
  const fields = bodyFields(req);
  const result = await identity.signIn(
    {
      resourceId: context.resource?.id ?? 0,
      email: stringField(fields, 'email'),
      password: stringField(fields, 'password'),
      ...sessionRequest(context, fields),
    },
    { requestId: context.requestId },
  );
  return { body: serializeSessionResult(result) };
};

/** How a sign-in wants its session delivered, and where it comes from (POST /authorization and its siblings). */
export const sessionRequest = (context: RequestContext, fields: Record<string, unknown>) => ({
  responseType: stringField(fields, 'response_type'),
  redirectUri: stringField(fields, 'redirect_uri'),
  guestSession: context.headers.session,
  sourceType: context.headers.sourceType,
  ip: context.ip,
  userAgent: context.userAgent,
});

/**
 * POST /registration: the same body as sign-in, 201 because a member was created or joined.
 * Fields of the wrong type count as missing and yield the documented 409s.
 */
export const register: RouteHandler = async (context, req, { identity }) => {
  const fields = bodyFields(req);
  const optionalText = (name: string) => stringField(fields, name).trim() || undefined;
  const result = await identity.register(
    {
      resourceId: context.resource!.id,
      email: stringField(fields, 'email'),
      password: stringField(fields, 'password'),
      firstName: optionalText('first_name'),
      lastName: optionalText('last_name'),
      guestSession: context.headers.session,
      sourceType: context.headers.sourceType,
      ip: context.ip,
      userAgent: context.userAgent,
    },
    { requestId: context.requestId },
  );
  return { status: 201, body: serializeSessionResult(result) };
};

/** POST /email-validation: `{result: true}` when the email can register in this resource. */
export const validateEmail: RouteHandler = async (context, req, { identity }) => {
  const email = stringField(bodyFields(req), 'email');
  await identity.validateEmail({ resourceId: context.resource!.id, email, ip: context.ip }, { requestId: context.requestId });
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
  return body;
}

/** GET /user: the user projection at top level; resource views only with a resource. */
export const getUser: RouteHandler = async (context, _req, { identity }) => {
  const profile = await identity.getProfile(
    { userId: context.caller.user!.id, resourceId: context.resource?.id ?? 0 },
    { requestId: context.requestId, idempotent: true },
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
