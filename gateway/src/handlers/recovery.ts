import type { ClientInfo } from '@masthead/proto/identity/recovery';
import { type z } from 'zod';
import type { RequestContext } from '../auth/context.js';
import { fromFields, fromParams, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { type emailRequest, serializeSessionResult } from './identity.js';

/**
 * Codes sent to members and external login (document 1, section B; designs in docs/adr/0055
 * to 0058). Bodies are JSON or form (form wins), like POST /authorization; a field of the wrong
 * type counts as missing and yields the operation's 409.
 */

export const clientOf = (context: RequestContext): ClientInfo => ({
  ip: context.ip,
  userAgent: context.userAgent,
  guestSession: context.headers.session,
  sourceType: context.headers.sourceType,
});

const ACKNOWLEDGED = { body: { result: true } };

/** A request for a mailed code: `{result: true}` for any valid email, known or not (ADR 0055). */
const codeRequest =
  (call: 'resendConfirmation' | 'requestPasswordReset'): Handler<'guestWithResource', z.output<typeof emailRequest>> =>
  async (context, { email }, { recovery }) => {
    await recovery[call]({ resourceId: context.resource.id, email, client: clientOf(context) });
    return ACKNOWLEDGED;
  };

/** POST /resend-confirmation: another confirmation code for an unconfirmed member. */
export const resendConfirmation = codeRequest('resendConfirmation');

/** POST /reset-password: a reset code for an active account. */
export const resetPassword = codeRequest('requestPasswordReset');

/** POST /confirm-email: confirms a confirmation or email-change code; names the confirmed address. */
export const confirmEmailRequest = fromFields({ code: text });

export const confirmEmail: Handler<'guestWithResource', z.output<typeof confirmEmailRequest>> = async (context, { code }, { recovery }) => {
  const confirmed = await recovery.confirmEmail({ resourceId: context.resource.id, code, client: clientOf(context) });
  return { body: { result: true, email: confirmed.email } };
};

/** POST /confirm-password: a reset code and a new password; the session result, as sign-in. */
export const confirmPasswordRequest = fromFields({ code: text, password: text });

export const confirmPassword: Handler<'guestWithResource', z.output<typeof confirmPasswordRequest>> = async (
  context,
  fields,
  { recovery },
) => {
  const result = await recovery.confirmPasswordReset({
    resourceId: context.resource.id,
    code: fields.code,
    password: fields.password,
    client: clientOf(context),
  });
  return { body: serializeSessionResult(result) };
};

/** PUT /user/email: mails a code to the new address; the change waits for POST /confirm-email. */
export const changeEmailRequest = fromFields({ email: text, password: text });

export const changeEmail: Handler<'member', z.output<typeof changeEmailRequest>> = async (context, fields, { recovery }) => {
  await recovery.requestEmailChange({
    resourceId: context.resource.id,
    userId: context.caller.user.id,
    email: fields.email,
    password: fields.password,
    client: clientOf(context),
  });
  return ACKNOWLEDGED;
};

/** GET /auth/external/{token}: consumes a one-time login token; the session result, as sign-in. */
export const externalAuthRequest = fromParams({ token: text });

export const externalAuth: Handler<'guestWithResource', z.output<typeof externalAuthRequest>> = async (
  context,
  { token },
  { recovery },
) => {
  const result = await recovery.signInWithExternalToken({ resourceId: context.resource.id, token, client: clientOf(context) });
  return { body: serializeSessionResult(result) };
};
