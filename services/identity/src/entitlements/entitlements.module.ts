import type { ResourceDirectory } from '@masthead/core/resources';
import type { ServiceRuntime } from '@masthead/core/service';
import { EntitlementsServiceService } from '@masthead/proto/identity/entitlements';
import type { IdentityConfig } from '../config.js';
import { entitlementsHandlers } from '../grpc/entitlements.handlers.js';
import type { ProfileService } from '../users/profile.service.js';
import { entitlementTiming, signingKeyRing } from './entitlements.config.js';
import { EntitlementTokens } from './entitlement-tokens.js';
import { RevocationRepository } from './revocation.repository.js';
import { Revocations } from './revocations.js';
import { SigningKeyRepository } from './signing-key.repository.js';
import { SigningKeys } from './signing-keys.js';

export interface EntitlementsModuleDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  resources: ResourceDirectory;
  profiles: ProfileService;
  /** Milliseconds since the epoch; tests may move it. */
  clock?: () => number;
}

/**
 * The entitlements area (docs/adr/0246–0248): signing keys and their rotation, entitlement tokens
 * beside session tokens, the published key set and the revocation lists.
 */
export async function createEntitlementsModule(deps: EntitlementsModuleDeps) {
  const { runtime, config, resources, profiles } = deps;
  const clock = deps.clock ?? Date.now;
  const timing = entitlementTiming(config.ENTITLEMENT_TOKEN_TTL_SECONDS);
  const ring = signingKeyRing(config);
  const keyRepository = new SigningKeyRepository(runtime.db);
  const revocationRepository = new RevocationRepository(runtime.db);
  await Promise.all([keyRepository.ready(), revocationRepository.ready()]);
  const keys = new SigningKeys({ repository: keyRepository, ring, timing, logger: runtime.logger, clock });
  await keys.start();
  const issuer = config.ENTITLEMENT_ISSUER;
  const tokens = new EntitlementTokens({ keys, resources, profiles, issuer, tokenTtlMs: timing.tokenTtlMs, clock, logger: runtime.logger });
  const revocations = new Revocations({ repository: revocationRepository, keys, resources, timing, issuer, clock, logger: runtime.logger });
  revocations.listen(runtime.nats, runtime.logger);
  return {
    tokens,
    revocations,
    service: {
      name: 'masthead.identity.v1.EntitlementsService',
      definition: EntitlementsServiceService,
      implementation: entitlementsHandlers({
        tokens,
        keys,
        revocations,
        keySetMaxAgeSeconds: Math.floor(timing.keySetMaxAgeMs / 1000),
        canStoreKeys: ring !== null,
      }),
    },
    stop(): void {
      keys.stop();
      revocations.stop();
    },
  };
}
