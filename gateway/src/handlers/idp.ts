import { httpError } from '@masthead/core/errors';
import type { Request } from 'express';
import type { RequestContext } from '../auth/context.js';
import { bodyFields, jsonObject, stringField } from '../http/body.js';
import type { RouteHandler } from './types.js';

/**
 * The create-member flag of POST /idp/oauth/token. Its first letter is the Cyrillic `с`
 * (U+0441), not the Latin `c`: kept because the API says so; the ASCII spelling is not an alias.
 */
export const CREATE_MEMBER_FLAG = '\u0441reate_user_if_not_exist';

const resourceIdOf = (context: RequestContext) => context.resource!.id;

/** Y-m-d H:i:s in UTC, the spec's `expired_at` format (no timezone). */
const toSpecDateTime = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

/** The signed-in member of a member-context operation (the row's access class checked the rest). */
function memberId(context: RequestContext): number {
  if (!context.caller.user) throw httpError(401, 'auth_failed', 'Authentication required');
  return context.caller.user.id;
}

/** The JSON body of an operation that requires one: 400 incorrect_data otherwise (document 1, A). */
function requiredJson(req: Request): Record<string, unknown> {
  const body = jsonObject(req);
  if (!body) throw httpError(400, 'incorrect_data', 'body must be JSON');
  return body;
}

/** POST /idp/oauth/token: 201 on the registration path, 200 for a linked identity. */
export const exchangeToken: RouteHandler = async (context, req, { identityProvider }) => {
  const fields = bodyFields(req);
  // Only a JSON boolean is honoured; a form string or any other JSON type leaves the default (true).
  const flag = jsonObject(req)?.[CREATE_MEMBER_FLAG];
  const result = await identityProvider.exchangeToken({
    resourceId: resourceIdOf(context),
    idpToken: context.headers.idpToken,
    invite: stringField(fields, 'invite'),
    createMember: typeof flag === 'boolean' ? flag : undefined,
    guestSession: context.headers.session,
    sourceType: context.headers.sourceType,
    ip: context.ip,
    userAgent: context.userAgent,
  });
  return { status: result.registered ? 201 : 200, body: { token: result.token, existed: result.existed } };
};

/** POST /idp/sign-in: a provider ID token for email and password; no session. */
export const providerSignIn: RouteHandler = async (context, req, { identityProvider }) => {
  const body = requiredJson(req);
  const result = await identityProvider.providerSignIn({
    resourceId: resourceIdOf(context),
    email: stringField(body, 'email'),
    password: stringField(body, 'password'),
    ip: context.ip,
  });
  return { body: { idp_user_id: result.idpUserId, status: true, idp_token_id: result.idpToken } };
};

/** POST /idp/verify-token: what the header's provider ID token says. */
export const verifyToken: RouteHandler = async (context, _req, { identityProvider }) => {
  const result = await identityProvider.verifyToken({ resourceId: resourceIdOf(context), idpToken: context.headers.idpToken });
  return {
    body: {
      status: true,
      expired_at: result.expiresAt === undefined ? null : toSpecDateTime(result.expiresAt),
      idp_user_id: result.idpUserId || null,
    },
  };
};

/** POST /idp/registration (ADR 0051): links or creates the member; no session. */
export const registerIdentity: RouteHandler = async (context, req, { identityProvider }) => {
  const fields = bodyFields(req);
  const optionalText = (name: string) => stringField(fields, name).trim() || undefined;
  const result = await identityProvider.registerIdentity({
    resourceId: resourceIdOf(context),
    idpToken: context.headers.idpToken,
    firstName: optionalText('first_name'),
    lastName: optionalText('last_name'),
    requestIp: context.ip,
  });
  return {
    status: result.registered ? 201 : 200,
    body: { user_id: result.userId, idp_user_id: result.idpUserId, existed: result.existed },
  };
};

/** POST /idp/revoke-token (ADR 0051): revokes the provider sessions of the header's identity. */
export const revokeToken: RouteHandler = async (context, _req, { identityProvider }) => {
  const result = await identityProvider.revokeProviderSessions({ resourceId: resourceIdOf(context), idpToken: context.headers.idpToken });
  return { body: { status: true, idp_user_id: result.idpUserId } };
};

/** GET /idp/custom-token (ADR 0051): a provider custom token for the signed-in member. */
export const customToken: RouteHandler = async (context, _req, { identityProvider }) => {
  const result = await identityProvider.createCustomToken({ resourceId: resourceIdOf(context), userId: memberId(context) });
  return { body: { status: true, idp_custom_token: result.customToken } };
};

/** GET /idp/account (ADR 0051): the resource's public provider configuration. */
export const providerAccount: RouteHandler = async (context, _req, { identityProvider }) => {
  const account = await identityProvider.getProviderAccount({ resourceId: resourceIdOf(context) });
  return { body: { project_id: account.projectId, web_app_config: account.webAppConfig ?? {} } };
};

/** GET /idp/check/email?email= (ADR 0051): the email's relationship with this resource. */
export const checkEmail: RouteHandler = async (context, req, { identityProvider }) => {
  const email = typeof req.query['email'] === 'string' ? req.query['email'] : '';
  const result = await identityProvider.checkEmail({ resourceId: resourceIdOf(context), email, ip: context.ip });
  return { body: { resource_member: result.resourceMember, idp_linked: result.idpLinked } };
};

/** The body of both provider mails: `email`, optional `continue_url`. */
function mailRequest(context: RequestContext, req: Request) {
  const fields = bodyFields(req);
  return {
    resourceId: resourceIdOf(context),
    email: stringField(fields, 'email'),
    continueUrl: stringField(fields, 'continue_url'),
    ip: context.ip,
  };
}

/** POST /idp/password-reset (ADR 0051): the provider mails a reset link; same answer for any email. */
export const passwordReset: RouteHandler = async (context, req, { identityProvider }) => {
  await identityProvider.sendPasswordReset(mailRequest(context, req));
  return { body: { status: true } };
};

/** POST /idp/email-auth-link (ADR 0051): the provider mails a sign-in link to `continue_url`. */
export const emailAuthLink: RouteHandler = async (context, req, { identityProvider }) => {
  await identityProvider.sendEmailSignInLink(mailRequest(context, req));
  return { body: { status: true } };
};

/** PUT /idp/docstore/user (ADR 0052): merges the body's fields into the member's document. */
export const updateDocstoreUser: RouteHandler = async (context, req, { identityProvider }) => {
  if (req.decoded.malformed) throw httpError(400, 'incorrect_data', 'body must be JSON');
  const result = await identityProvider.updateDocstoreUser({
    resourceId: resourceIdOf(context),
    userId: memberId(context),
    fields: bodyFields(req),
  });
  return { body: { status: true, idp_user_id: result.documentId, data: result.fields ?? {} } };
};
