import type { AsyncImplementation } from '@masthead/core/grpc';
import type { EntitlementsServiceService, SigningKey } from '@masthead/proto/identity/entitlements';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import { entitlementSigningUnavailable } from '../entitlements/entitlements.errors.js';
import type { Revocations } from '../entitlements/revocations.js';
import type { KeyView, SigningKeys } from '../entitlements/signing-keys.js';

interface Deps {
  tokens: EntitlementTokens;
  keys: SigningKeys;
  revocations: Revocations;
  /** The key set's Cache-Control max-age (docs/adr/0247). */
  keySetMaxAgeSeconds: number;
  /** Whether keys can be stored (IDENTITY_SECRETS_KEYS is set). */
  canStoreKeys: boolean;
}

const toSigningKey = (key: KeyView): SigningKey => ({
  kid: key.kid,
  alg: key.alg,
  createdAt: key.createdAt.toISOString(),
  signsFrom: key.signsFrom.toISOString(),
  retiresAt: key.retiresAt?.toISOString(),
  state: key.state,
});

/** gRPC EntitlementsService (proto/defs/masthead/identity/v1/entitlements.proto). */
export function entitlementsHandlers(deps: Deps): AsyncImplementation<typeof EntitlementsServiceService> {
  const { tokens, keys, revocations } = deps;
  return {
    issueEntitlementToken: ({ userId, resourceId, sessionId }) =>
      tokens.issue({ _id: sessionId, user_id: userId, resource_id: resourceId }),
    getPublishedKeys: async () => ({ jwksJson: keys.publishedJwks(), maxAgeSeconds: deps.keySetMaxAgeSeconds }),
    getRevocationList: async ({ resourceId }) => revocations.list(resourceId),
    rotateSigningKey: async () => {
      if (!deps.canStoreKeys) throw entitlementSigningUnavailable();
      return { keys: (await keys.rotate()).map(toSigningKey) };
    },
    listSigningKeys: async () => ({ keys: (await keys.views()).map(toSigningKey) }),
  };
}
