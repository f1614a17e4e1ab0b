import type { ClientOf } from '@masthead/core/clients';
import { isServiceError } from '@masthead/core/errors';
import type { PricingSeatRepository } from './pricing-seat.repository.js';

interface Deps {
  seats: PricingSeatRepository;
  pricings: ClientOf<'pricings'>;
}

/** A Pricing as far as its seats go. */
export type SeatPricing = { id: number; usersLimit?: number | undefined };

/**
 * Seats of team Pricings (document 2 C: "positive users_limit counts active team Pricing
 * relationships"; docs/adr/0233). A relationship on a Pricing with a positive `users_limit`
 * holds one of its seats: claimed where the seat is given — an invitation's activation, an
 * owner moving the relationship to the Pricing — and given back when the relationship is
 * removed or leaves the Pricing. The count where an invite is created only promises a seat.
 */
export class PricingSeats {
  constructor(private readonly deps: Deps) {}

  /**
   * The user's seat of the Pricing in the team, claimed below its `users_limit` or the one the
   * user holds already; true when the user holds one now. A Pricing without a cap has no seats:
   * true. `activationId` links a claim to the activation that took it.
   */
  async take(teamId: number, userId: number, pricing: SeatPricing | null, activationId: string | null = null): Promise<boolean> {
    const limit = pricing?.usersLimit ?? 0;
    if (!pricing || limit <= 0) return true;
    return !('full' in (await this.deps.seats.claim(teamId, pricing.id, userId, limit, activationId)));
  }

  /**
   * `take` for a Pricing named by ID in the resource (an owner's change of a relationship). A
   * Pricing the resource does not have caps nothing: the relationship only requests it.
   */
  async takeById(resourceId: number, teamId: number, userId: number, pricingId: number | null): Promise<boolean> {
    if (!pricingId) return true;
    const pricing = await this.deps.pricings.getPricing({ resourceId, pricingId }, { idempotent: true }).catch((error: unknown) => {
      if (isServiceError(error) && error.status === 404) return null;
      throw error;
    });
    return this.take(teamId, userId, pricing);
  }

  /** Gives back the seats an activation claimed (its grant was refused for good). */
  giveBack(teamId: number, userId: number, activationId: string): Promise<void> {
    return this.deps.seats.releaseOfActivation(teamId, userId, activationId);
  }

  /** The relationship holds only `keepPricingId`'s seat now (null: none, it was removed). */
  keepOnly(teamId: number, userId: number, keepPricingId: number | null): Promise<void> {
    return this.deps.seats.releaseForUser(teamId, userId, keepPricingId);
  }

  releaseTeam(teamId: number): Promise<void> {
    return this.deps.seats.releaseAll(teamId);
  }
}
