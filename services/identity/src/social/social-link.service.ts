import type { Logger } from '@masthead/core/logging';
import { IdTokenRejected, type IdTokenVerifier, type VerifiedIdentity } from './id-token-verifier.js';
import type { SocialLinkRepository } from './social-link.repository.js';
import type { SocialLinkRecord } from './social-link.schema.js';
import { idTokenNotVerified, socialAlreadyLinked } from './social.errors.js';

interface SocialLinkDeps {
  verifier: IdTokenVerifier;
  links: SocialLinkRepository;
  logger: Logger;
}

/** Links and unlinks a signed-in member's provider identities (PUT /user/social, POST /user/social/delete). */
export class SocialLinkService {
  constructor(private readonly deps: SocialLinkDeps) {}

  /**
   * Links the token's identity to the user; the user's earlier identity of the same provider is
   * replaced (one per provider, a global field of the user). Linking again is no error.
   * 409 verify_failed for a token that does not verify, 409 social_already_linked when another
   * user holds the identity.
   */
  async link(userId: number, provider: string, token: string): Promise<SocialLinkRecord[]> {
    const identity = await this.verified(provider, token, userId);
    const owner = await this.deps.links.claim(identity, userId);
    if (owner.user_id !== userId) throw socialAlreadyLinked();
    await this.deps.links.unlink(userId, provider, identity.sub);
    return this.deps.links.listByUser(userId);
  }

  /** Unlinks the user's identity of the provider; none linked is no error. */
  async unlink(userId: number, provider: string): Promise<SocialLinkRecord[]> {
    await this.deps.links.unlink(userId, provider);
    return this.deps.links.listByUser(userId);
  }

  private async verified(provider: string, token: string, userId: number): Promise<VerifiedIdentity> {
    try {
      return await this.deps.verifier.verify(provider, token);
    } catch (error) {
      if (!(error instanceof IdTokenRejected)) throw error;
      this.deps.logger.info({ provider, user_id: userId, reason: error.reason }, 'social link refused');
      throw idTokenNotVerified();
    }
  }
}
