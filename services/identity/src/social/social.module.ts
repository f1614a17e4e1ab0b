import type { ResourceDirectory } from '@masthead/core/resources';
import type { ServiceRuntime } from '@masthead/core/service';
import type { LockPolicy } from '../access/lock-policy.js';
import type { IdentityConfig } from '../config.js';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import { socialHandlers } from '../grpc/social.handlers.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { SessionStarter } from '../signin/session-starter.js';
import type { ProfileService } from '../users/profile.service.js';
import type { UserRepository } from '../users/user.repository.js';
import { IdTokenVerifier } from './id-token-verifier.js';
import { SocialLinkRepository } from './social-link.repository.js';
import { SocialLinkService } from './social-link.service.js';
import { SocialSignInService } from './social-sign-in.service.js';

export interface SocialModuleDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  users: UserRepository;
  relationships: RelationshipRepository;
  resources: ResourceDirectory;
  starter: SessionStarter;
  lockPolicy: LockPolicy;
  profiles: ProfileService;
  entitlements: EntitlementTokens;
}

/** The social area: sign-in with a provider's ID token, and linking providers to a member. */
export async function createSocialModule(deps: SocialModuleDeps) {
  const { runtime, config, users, relationships } = deps;
  const links = new SocialLinkRepository(runtime.db);
  await links.ready();
  const verifier = new IdTokenVerifier(config.SOCIAL_PROVIDERS, {
    jwksTimeoutMs: config.SOCIAL_JWKS_TIMEOUT_MS,
    clockToleranceSeconds: config.SOCIAL_CLOCK_TOLERANCE_SECONDS,
  });
  return socialHandlers({
    verifier,
    signIn: new SocialSignInService({
      verifier,
      links,
      users,
      relationships,
      resources: deps.resources,
      starter: deps.starter,
      lockPolicy: deps.lockPolicy,
      logger: runtime.logger,
    }),
    links: new SocialLinkService({ verifier, links, logger: runtime.logger }),
    profiles: deps.profiles,
    entitlements: deps.entitlements,
  });
}
