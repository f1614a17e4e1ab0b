import type { ClaimHolder } from '../checkout/claim-holder.js';
import type { PromoRepository } from './promo.repository.js';

export interface AbandonedUsesDeps {
  promos: PromoRepository;
  /** Where the checkout holding a use stands (`claimHolders`, wired by billing's app). */
  holderState(claimKey: string, claimedAt: Date): Promise<ClaimHolder['state']>;
  /** Least time between two looks at one code's uses in this process. */
  intervalMs: number;
  now?: () => Date;
}

/**
 * Gives back the uses of a limited code that checkouts claimed and then never recorded, because
 * the process died between the claim and the transaction (docs/adr/0220). Looked for only when a
 * code seems used up, at most once per `intervalMs` per code, and only among uses not yet seen
 * with their transaction: a use found recorded is marked so and never looked at again. Giving a
 * use back first wins its fate against the checkout keeping it (docs/adr/0235), so a checkout
 * that was only slow never keeps a use that someone else gets too.
 */
export class AbandonedUses {
  private readonly lastLook = new Map<number, number>();

  constructor(private readonly deps: AbandonedUsesDeps) {}

  /** True when some use of the code was given back. */
  async giveBack(promoId: number): Promise<boolean> {
    const now = (this.deps.now?.() ?? new Date()).getTime();
    if (now - (this.lastLook.get(promoId) ?? -Infinity) < this.deps.intervalMs) return false;
    this.lastLook.set(promoId, now);
    let given = false;
    for (const use of await this.deps.promos.unconfirmedUses(promoId)) {
      const state = await this.deps.holderState(use.claim_key, use.created_at);
      if (state === 'running') continue;
      // A checkout without its transaction may be slow, not dead: it recorded the transaction
      // meanwhile if it kept the use first (docs/adr/0235).
      const kept = state === 'recorded' || (state === 'abandoned' && (await this.deps.promos.settleFate(use, 'given_back')) === 'kept');
      if (kept) {
        await this.deps.promos.confirmUse(use._id);
        continue;
      }
      await this.deps.promos.releaseUse(use);
      given = true;
    }
    return given;
  }
}
