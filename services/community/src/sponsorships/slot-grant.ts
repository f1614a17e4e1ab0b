import type { ClientOf } from '@masthead/core/clients';
import type { EventPublisher } from '@masthead/core/events';
import type { ClaimOutcomes } from '../support/claim-outcomes.js';
import { isGrantRefused } from '../support/grant-refusal.js';
import type { SlotRepository } from './slot.repository.js';
import type { SlotActivationRecord } from './slot.schema.js';
import { slotGrantFailed } from './sponsorship.errors.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

interface Deps {
  slots: SlotRepository;
  memberships: ClientOf<'memberships'>;
  outcomes: ClaimOutcomes;
  events: EventPublisher;
}

/** The outcome key of one claim of a seat; rows granted before claims had IDs have no pending grant. */
export const slotOutcomeKey = (activation: Pick<SlotActivationRecord, '_id' | 'claim_id'>): string =>
  `slot:${activation.claim_id ?? activation._id}`;

/**
 * The membership a recipient's seat stands for (docs/adr/0233, 0155): a seat and its grant
 * succeed or fail together. A grant catalog refused for good frees the seat; one whose outcome
 * is unknown (a deadline, an outage: the membership may exist) keeps it, and the recipient's
 * retry or the pending-grant pass finishes it (the grant is idempotent). One outcome per claim
 * (ClaimOutcomes), so `sponsor_slot_activated` is published once.
 */
export class SlotGrant {
  constructor(private readonly deps: Deps) {}

  /** The seat's membership, granted; 409 sponsor_slot_activation_error when it cannot be now (the seat freed when refused for good). */
  async finish(activation: SlotActivationRecord, sponsorship: SponsorshipRecord): Promise<SlotActivationRecord> {
    let membershipId: number;
    try {
      const granted = await this.deps.memberships.grantMembership(
        {
          resourceId: activation.resource_id,
          userId: activation.user_id,
          pricingId: sponsorship.pricing_id,
          autorenew: sponsorship.autorenew,
        },
        { idempotent: true },
      );
      membershipId = granted.id;
    } catch (error) {
      if (isGrantRefused(error)) await this.release(activation);
      throw slotGrantFailed();
    }
    const { outcome, won } = await this.deps.outcomes.settle(slotOutcomeKey(activation), 'granted');
    if (outcome === 'released') throw slotGrantFailed();
    // Also when another finisher won: a crash may have come between its outcome and its mark.
    await this.deps.slots.markGranted(activation, membershipId);
    if (won) {
      await this.deps.events.publish({
        name: 'sponsor_slot_activated',
        resourceId: activation.resource_id,
        payload: {
          slot_id: activation.slot_id,
          sponsorship_id: sponsorship._id,
          user_id: activation.user_id,
          membership_id: membershipId,
          pricing_id: sponsorship.pricing_id,
        },
      });
    }
    return { ...activation, membership_id: membershipId };
  }

  /** Frees the seat unless its membership was granted meanwhile; true when it was freed. */
  async release(activation: SlotActivationRecord): Promise<boolean> {
    const { outcome } = await this.deps.outcomes.settle(slotOutcomeKey(activation), 'released');
    if (outcome === 'granted') return false;
    await this.deps.slots.deleteClaim(activation);
    return true;
  }
}
