import { sessionContextOf } from './session-context.js';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { IdentityProviderServiceService } from '@masthead/proto/identity/idp';
import type { DocstoreUserService } from '../idp/docstore-user.service.js';
import type { EmailRelationshipService } from '../idp/email-relationship.service.js';
import type { IdentityLinker } from '../idp/identity-linker.js';
import type { IdentityProvider } from '../idp/identity-provider.js';
import type { MemberProviderTokens } from '../idp/member-provider-tokens.js';
import { asDynamicError } from '../idp/provider-errors.js';
import type { ProviderMailService } from '../idp/provider-mail.service.js';
import type { ProviderSignInService } from '../idp/provider-sign-in.service.js';
import { requireProviderSettings } from '../idp/provider-settings.js';
import type { TokenExchangeService } from '../idp/token-exchange.service.js';
import { verifyRequestToken } from '../idp/token-verifier.js';
import type { ResourceDirectory } from '../resources/resource-directory.js';
import { emptyIdpToken } from '../idp/idp.errors.js';

interface IdpDeps {
  resources: ResourceDirectory;
  provider: IdentityProvider;
  exchange: TokenExchangeService;
  linker: IdentityLinker;
  providerSignIn: ProviderSignInService;
  mail: ProviderMailService;
  tokens: MemberProviderTokens;
  emailRelationships: EmailRelationshipService;
  docstoreUsers: DocstoreUserService;
}

/** Names longer than this are not names (same cap as POST /registration). */
const MAX_NAME_LENGTH = 255;
const nameOf = (value: string | undefined) => (value ? value.slice(0, MAX_NAME_LENGTH) : null);

/** gRPC handlers of IdentityProviderService (document 1, section A). */
export function idpHandlers(deps: IdpDeps): AsyncImplementation<typeof IdentityProviderServiceService> {
  const { resources, provider } = deps;
  return {
    exchangeToken: async (request, { requestId }) => {
      const resource = await resources.get(request.resourceId, requestId);
      const context = sessionContextOf(request, requestId);
      const command = { idToken: request.idpToken, invite: request.invite, createMember: request.createMember };
      return deps.exchange.exchange(command, resource, context);
    },

    providerSignIn: async ({ resourceId, email, password, ip }, { requestId }) => {
      const resource = await resources.get(resourceId, requestId);
      const { uid, idToken } = await deps.providerSignIn.signIn(resource, email, password, ip);
      return { idpUserId: uid, idpToken: idToken };
    },

    verifyToken: async ({ resourceId, idpToken }, { requestId }) => {
      if (!idpToken.trim()) throw emptyIdpToken();
      const resource = await resources.get(resourceId, requestId);
      const { identity } = await verifyRequestToken(provider, resource, idpToken).catch((error: unknown) => {
        throw asDynamicError(error);
      });
      return { idpUserId: identity.uid, expiresAt: identity.expiresAt ?? undefined };
    },

    registerIdentity: async (request, { requestId }) => {
      const resource = await resources.get(request.resourceId, requestId);
      const verified = await verifyRequestToken(provider, resource, request.idpToken);
      const member = await deps.linker.resolve(resource, verified, {
        mayJoin: true,
        firstName: nameOf(request.firstName),
        lastName: nameOf(request.lastName),
        requestId,
      });
      return { userId: member.user._id, idpUserId: verified.identity.uid, existed: member.existed, registered: member.registered };
    },

    revokeProviderSessions: async ({ resourceId, idpToken }, { requestId }) => {
      const resource = await resources.get(resourceId, requestId);
      const { settings, identity } = await verifyRequestToken(provider, resource, idpToken);
      await provider.revokeSessions(settings, identity.uid);
      return { idpUserId: identity.uid };
    },

    createCustomToken: async ({ resourceId, userId }, { requestId }) => {
      const resource = await resources.get(resourceId, requestId);
      return { customToken: await deps.tokens.customToken(resource, userId) };
    },

    getProviderAccount: async ({ resourceId }, { requestId }) => {
      const settings = requireProviderSettings(await resources.get(resourceId, requestId));
      return { projectId: settings.projectId, webAppConfig: settings.webAppConfig };
    },

    checkEmail: async ({ resourceId, email, ip }, { requestId }) => {
      const resource = await resources.get(resourceId, requestId);
      return deps.emailRelationships.check(resource, email, ip);
    },

    sendPasswordReset: async ({ resourceId, email, continueUrl, ip }, { requestId }) => {
      await deps.mail.send(await resources.get(resourceId, requestId), 'password_reset', email, continueUrl, ip);
      return {};
    },

    sendEmailSignInLink: async ({ resourceId, email, continueUrl, ip }, { requestId }) => {
      await deps.mail.send(await resources.get(resourceId, requestId), 'email_sign_in', email, continueUrl, ip);
      return {};
    },

    updateDocstoreUser: async ({ resourceId, userId, fields }, { requestId }) => {
      const resource = await resources.get(resourceId, requestId);
      return deps.docstoreUsers.update(resource, userId, fields ?? {});
    },
  };
}
