import type { PromoRepository } from './promo.repository.js';

/** Where the checkout holding a use stands: its transaction recorded, gone for good, or maybe still running. */
export type UseHolderState = 'recorded' | 'abandoned' | 'running';

export interface AbandonedUsesDeps {
  promos: PromoRepository;
  /** Decided from the checkout's transaction (billing's app wires it). */
  holderState(claimKey: string, claimedAt: Date): Promise<UseHolderState>;
  /** Least time between two looks at one code's uses in this process. */
  intervalMs: number;
  now?: () => number;
}

/**
 * Gives back the uses of a limited code that checkouts claimed and then never recorded, because
 * the process died between the claim and the transaction (docs/adr/0220). Looked for only when a
 * code seems used up, at most once per `intervalMs` per code, and only among uses not yet seen
 * with their transaction: a use found recorded is marked so and never looked at again.
 */
export class AbandonedUses {
  private readonly lastLook = new Map<number, number>();

  constructor(private readonly deps: AbandonedUsesDeps) {}

  /** True when some use of the code was given back. */
  async giveBack(promoId: number): Promise<boolean> {
    const now = (this.deps.now ?? Date.now)();
    if (now - (this.lastLook.get(promoId) ?? -Infinity) < this.deps.intervalMs) return false;
    this.lastLook.set(promoId, now);
    let given = false;
    for (const use of await this.deps.promos.unconfirmedUses(promoId)) {
      const state = await this.deps.holderState(use.claim_key, use.created_at);
      if (state === 'recorded') await this.deps.promos.confirmUse(use._id);
      if (state !== 'abandoned') continue;
      await this.deps.promos.release(use.claim_key);
      given = true;
    }
    return given;
  }
}
