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
      responseType: stringField(fields, 'response_type'),
      redirectUri: stringField(fields, 'redirect_uri'),
      guestSession: context.headers.session,
      sourceType: context.headers.sourceType,
      ip: context.ip,
      userAgent: context.userAgent,
    },
    { requestId: context.requestId },
  );
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
  return { body };
};

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
