import { sessionContextOf } from './session-context.js';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import type { CodeRequestService } from '../recovery/code-requests.service.js';
import type { EmailChangeService } from '../recovery/email-change.service.js';
import type { EmailConfirmationService } from '../recovery/email-confirmation.service.js';
import type { ExternalLoginService } from '../recovery/external-login.service.js';
import type { PassSignInService } from '../recovery/pass-sign-in.service.js';
import type { PasswordResetService } from '../recovery/password-reset.service.js';
import type { ResourceDirectory } from '@masthead/core/resources';

interface RecoveryHandlerDeps {
  resources: ResourceDirectory;
  codeRequests: CodeRequestService;
  emailConfirmation: EmailConfirmationService;
  passwordReset: PasswordResetService;
  emailChange: EmailChangeService;
  externalLogin: ExternalLoginService;
  passSignIn: PassSignInService;
}

/** gRPC face of AccountRecoveryService (proto/defs/masthead/identity/v1/recovery.proto). */
export function recoveryHandlers(deps: RecoveryHandlerDeps): AsyncImplementation<typeof AccountRecoveryServiceService> {
  const { resources, codeRequests, emailConfirmation, passwordReset, emailChange, externalLogin, passSignIn } = deps;
  return {
    resendConfirmation: async ({ resourceId, email, client }) => {
      await codeRequests.resendConfirmation({ resourceId, email, ip: client?.ip ?? '' });
      return {};
    },

    requestPasswordReset: async ({ resourceId, email, client }) => {
      await codeRequests.requestPasswordReset({ resourceId, email, ip: client?.ip ?? '' });
      return {};
    },

    confirmEmail: async ({ resourceId, code, client }) => ({ email: await emailConfirmation.confirm(resourceId, code, client?.ip ?? '') }),

    confirmPasswordReset: async ({ resourceId, code, password, client }, { requestId }) =>
      passwordReset.confirm(await resources.get(resourceId), code, password, sessionContextOf(client, requestId)),

    requestEmailChange: async ({ resourceId, userId, email, password, client }) => {
      await emailChange.request({ resourceId, userId, email, password, ip: client?.ip ?? '' });
      return {};
    },

    issueExternalLoginToken: async ({ resourceId, email, ttlSeconds }) => {
      const issued = await externalLogin.issue(resourceId, email, ttlSeconds);
      return { token: issued.code, userId: issued.userId, expires: Math.floor(issued.expiresAt.getTime() / 1000) };
    },

    signInWithExternalToken: async ({ resourceId, token, client }, { requestId }) =>
      externalLogin.signIn(await resources.get(resourceId), token, sessionContextOf(client, requestId)),

    signInWithPassToken: async ({ resourceId, token, client }, { requestId }) =>
      passSignIn.signIn(await resources.get(resourceId), token, sessionContextOf(client, requestId)),
  };
}
