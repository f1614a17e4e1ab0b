import { sessionContextOf } from './session-context.js';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { SocialIdentityServiceService } from '@masthead/proto/identity/social';
import { toSessionResult } from '../signin/session-result.js';
import type { IdTokenVerifier } from '../social/id-token-verifier.js';
import { toSocialIdentities } from '../social/social-link.projection.js';
import type { SocialLinkService } from '../social/social-link.service.js';
import { parseConfiguredProvider, parseIdToken, parseProviderName } from '../social/social.command.js';
import type { SocialSignInService } from '../social/social-sign-in.service.js';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { ProfileService } from '../users/profile.service.js';

interface Deps {
  verifier: IdTokenVerifier;
  signIn: SocialSignInService;
  links: SocialLinkService;
  profiles: ProfileService;
  entitlements: EntitlementTokens;
}

/** gRPC face of social sign-in and linking (document 1, sections B and C; ADR 0066). */
export function socialHandlers({
  verifier,
  signIn,
  links,
  profiles,
  entitlements,
}: Deps): AsyncImplementation<typeof SocialIdentityServiceService> {
  const configured = (name: string) => verifier.has(name);
  return {
    socialSignIn: async (request, { requestId }) => {
      const command = {
        resourceId: request.resourceId,
        provider: parseConfiguredProvider(request.provider, configured),
        idToken: parseIdToken(request.idToken),
        responseType: request.responseType,
        redirectUri: request.redirectUri,
      };
      const context = sessionContextOf(request, requestId);
      return toSessionResult(await signIn.signIn(command, context), { profiles, entitlements });
    },

    linkSocialIdentity: async ({ userId, provider, idToken }) =>
      toSocialIdentities(await links.link(userId, parseConfiguredProvider(provider, configured), parseIdToken(idToken))),

    // Unlinking needs no configured provider: a provider an operator removed can still be unlinked.
    unlinkSocialIdentity: async ({ userId, provider }) => toSocialIdentities(await links.unlink(userId, parseProviderName(provider))),
  };
}
