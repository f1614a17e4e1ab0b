import { ENTITLEMENT_TOKEN_TYPE } from '@masthead/entitlements';
import type { Logger } from '@masthead/core/logging';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { ProfileService, ResourceView } from '../users/profile.service.js';
import { entitlementClaims } from './entitlement-claims.js';
import { entitlementSigningUnavailable } from './entitlements.errors.js';
import type { SigningKeys } from './signing-keys.js';

/** The session a token is for: its member and resource (0: none). */
export interface TokenSession {
  _id: number;
  user_id: number;
  resource_id: number;
}

export interface IssuedEntitlementToken {
  token: string;
  /** Unix seconds: the token's `exp`. */
  expires: number;
}

interface EntitlementTokensDeps {
  keys: SigningKeys;
  resources: ResourceDirectory;
  profiles: ProfileService;
  issuer: string;
  tokenTtlMs: number;
  clock: () => number;
  logger: Logger;
}

/**
 * Entitlement tokens (docs/adr/0246): what a member holds in a session's resource, signed. They
 * read the member's resource view through the profile cache, as sign-in and GET /user do, so a
 * sign-in that has its view already pays only the signature.
 */
export class EntitlementTokens {
  constructor(private readonly deps: EntitlementTokensDeps) {}

  /**
   * The token to hand out beside a session token, or undefined: a session without a resource
   * entitles to nothing, and a failure (no usable key, an unreachable service) must not cost the
   * member the session it just got, so it is logged and the field left out.
   */
  async beside(session: TokenSession, view?: ResourceView): Promise<string | undefined> {
    if (!session.resource_id) return undefined;
    try {
      return (await this.issue(session, view)).token;
    } catch (error) {
      this.deps.logger.warn({ err: error, sessionId: session._id }, 'entitlement token left out of a session answer');
      return undefined;
    }
  }

  /** A token for the session; 503 entitlement_signing_unavailable when no key can sign. */
  async issue(session: TokenSession, knownView?: ResourceView): Promise<IssuedEntitlementToken> {
    if (!this.deps.keys.signer()) throw entitlementSigningUnavailable();
    const [resource, view] = await Promise.all([
      this.deps.resources.get(session.resource_id),
      knownView ?? this.deps.profiles.resourceView(session.resource_id, session.user_id),
    ]);
    // Taken again after the reads: a rotation may have begun signing meanwhile.
    const signer = this.deps.keys.signer();
    if (!signer) throw entitlementSigningUnavailable();
    const claims = entitlementClaims({
      issuer: this.deps.issuer,
      resourceKey: resource.publicKey,
      userId: session.user_id,
      sessionId: session._id,
      now: this.deps.clock(),
      tokenTtlMs: this.deps.tokenTtlMs,
      memberships: view.memberships.items,
      summary: view.summary,
    });
    return { token: signer.sign(ENTITLEMENT_TOKEN_TYPE, claims), expires: claims.exp };
  }
}
