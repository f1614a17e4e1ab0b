import { z } from 'zod';
import type { ResourceContext } from '../auth/context.js';
import { idpBodyNotJson } from '../errors/request.js';
import { fromFields, fromQuery, jsonBoolean, optionalText, queryText, raise, requiredJsonFields, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';

/**
 * The create-member flag of POST /idp/oauth/token. Its first letter is the Cyrillic `с`
 * (U+0441), not the Latin `c`: kept because the API says so; the ASCII spelling is not an alias.
 */
export const CREATE_MEMBER_FLAG = '\u0441reate_user_if_not_exist';

const resourceIdOf = (context: ResourceContext) => context.resource.id;

/** Y-m-d H:i:s in UTC, the spec's `expired_at` format (no timezone). */
const toSpecDateTime = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * POST /idp/oauth/token: `invite` (JSON or form); the create-member flag counts only as a JSON
 * boolean: a form string or any other JSON type leaves the default (true).
 */
export const exchangeTokenRequest = z
  .object({ fields: z.object({ invite: text }), json: z.object({ [CREATE_MEMBER_FLAG]: jsonBoolean }).optional() })
  .transform(({ fields, json }) => ({ invite: fields.invite, createMember: json?.[CREATE_MEMBER_FLAG] }));

/** POST /idp/oauth/token: 201 on the registration path, 200 for a linked identity. */
export const exchangeToken: Handler<'guestWithResource', z.output<typeof exchangeTokenRequest>> = async (
  context,
  { invite, createMember },
  { identityProvider },
) => {
  const result = await identityProvider.exchangeToken({
    resourceId: resourceIdOf(context),
    idpToken: context.headers.idpToken,
    invite,
    createMember,
    guestSession: context.headers.session,
    sourceType: context.headers.sourceType,
    ip: context.ip,
    userAgent: context.userAgent,
  });
  // `entitlement_token`: beyond the spec (docs/adr/0246), absent when it could not be signed.
  const body = {
    token: result.token,
    existed: result.existed,
    ...(result.entitlementToken ? { entitlement_token: result.entitlementToken } : {}),
  };
  return { status: result.registered ? 201 : 200, body };
};

/** POST /idp/sign-in: JSON only; 400 incorrect_data otherwise (document 1, A). */
export const providerSignInRequest = z
  .object({ json: requiredJsonFields(idpBodyNotJson, { email: text, password: text }) })
  .transform(({ json }) => json);

/** POST /idp/sign-in: a provider ID token for email and password; no session. */
export const providerSignIn: Handler<'guestWithResource', z.output<typeof providerSignInRequest>> = async (
  context,
  { email, password },
  { identityProvider },
) => {
  const result = await identityProvider.providerSignIn({ resourceId: resourceIdOf(context), email, password, ip: context.ip });
  return { body: { idp_user_id: result.idpUserId, status: true, idp_token_id: result.idpToken } };
};

/** POST /idp/verify-token: what the header's provider ID token says. */
export const verifyToken: Handler<'guestWithResource'> = async (context, _input, { identityProvider }) => {
  const result = await identityProvider.verifyToken({ resourceId: resourceIdOf(context), idpToken: context.headers.idpToken });
  return {
    body: {
      status: true,
      expired_at: result.expiresAt === undefined ? null : toSpecDateTime(result.expiresAt),
      idp_user_id: result.idpUserId || null,
    },
  };
};

export const registerIdentityRequest = fromFields({ first_name: optionalText, last_name: optionalText });

/** POST /idp/registration (ADR 0051): links or creates the member; no session. */
export const registerIdentity: Handler<'guestWithResource', z.output<typeof registerIdentityRequest>> = async (
  context,
  fields,
  { identityProvider },
) => {
  const result = await identityProvider.registerIdentity({
    resourceId: resourceIdOf(context),
    idpToken: context.headers.idpToken,
    firstName: fields.first_name,
    lastName: fields.last_name,
    requestIp: context.ip,
  });
  return {
    status: result.registered ? 201 : 200,
    body: { user_id: result.userId, idp_user_id: result.idpUserId, existed: result.existed },
  };
};

/** POST /idp/revoke-token (ADR 0051): revokes the provider sessions of the header's identity. */
export const revokeToken: Handler<'guestWithResource'> = async (context, _input, { identityProvider }) => {
  const result = await identityProvider.revokeProviderSessions({ resourceId: resourceIdOf(context), idpToken: context.headers.idpToken });
  return { body: { status: true, idp_user_id: result.idpUserId } };
};

/** GET /idp/custom-token (ADR 0051): a provider custom token for the signed-in member. */
export const customToken: Handler<'member'> = async (context, _input, { identityProvider }) => {
  const result = await identityProvider.createCustomToken({ resourceId: resourceIdOf(context), userId: context.caller.user.id });
  return { body: { status: true, idp_custom_token: result.customToken } };
};

/** GET /idp/account (ADR 0051): the resource's public provider configuration. */
export const providerAccount: Handler<'guestWithResource'> = async (context, _input, { identityProvider }) => {
  const account = await identityProvider.getProviderAccount({ resourceId: resourceIdOf(context) });
  return { body: { project_id: account.projectId, web_app_config: account.webAppConfig ?? {} } };
};

export const checkEmailRequest = fromQuery({ email: queryText });

/** GET /idp/check/email?email= (ADR 0051): the email's relationship with this resource. */
export const checkEmail: Handler<'guestWithResource', z.output<typeof checkEmailRequest>> = async (
  context,
  query,
  { identityProvider },
) => {
  const email = query.email ?? '';
  const result = await identityProvider.checkEmail({ resourceId: resourceIdOf(context), email, ip: context.ip });
  return { body: { resource_member: result.resourceMember, idp_linked: result.idpLinked } };
};

/** The body of both provider mails: `email`, optional `continue_url` (JSON or form). */
export const mailRequest = fromFields({ email: text, continue_url: text });
type MailRequest = z.output<typeof mailRequest>;

const mailOf = (context: ResourceContext, fields: MailRequest) => ({
  resourceId: resourceIdOf(context),
  email: fields.email,
  continueUrl: fields.continue_url,
  ip: context.ip,
});

/** POST /idp/password-reset (ADR 0051): the provider mails a reset link; same answer for any email. */
export const passwordReset: Handler<'guestWithResource', MailRequest> = async (context, fields, { identityProvider }) => {
  await identityProvider.sendPasswordReset(mailOf(context, fields));
  return { body: { status: true } };
};

/** POST /idp/email-auth-link (ADR 0051): the provider mails a sign-in link to `continue_url`. */
export const emailAuthLink: Handler<'guestWithResource', MailRequest> = async (context, fields, { identityProvider }) => {
  await identityProvider.sendEmailSignInLink(mailOf(context, fields));
  return { body: { status: true } };
};

/** PUT /idp/docstore/user: every body field (JSON or form); a malformed JSON body is 400 incorrect_data. */
export const docstoreRequest = z
  .object({ malformed: z.boolean(), fields: z.record(z.unknown()) })
  .transform(({ malformed, fields }, ctx) => (malformed ? raise(ctx, idpBodyNotJson) : fields));

/** PUT /idp/docstore/user (ADR 0052): merges the body's fields into the member's document. */
export const updateDocstoreUser: Handler<'member', z.output<typeof docstoreRequest>> = async (context, fields, { identityProvider }) => {
  const result = await identityProvider.updateDocstoreUser({ resourceId: resourceIdOf(context), userId: context.caller.user.id, fields });
  return { body: { status: true, idp_user_id: result.documentId, data: result.fields ?? {} } };
};
