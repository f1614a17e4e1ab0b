import type { ClientOf } from '@masthead/core/clients';
import { isServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { ClaimOutcomes } from '../support/claim-outcomes.js';
import type { RevokeCommand } from '../support/revocation-command.js';
import { slotOutcomeKey } from './slot-grant.js';
import type { SlotRepository } from './slot.repository.js';
import type { SponsorshipRevocationRepository } from './sponsorship-revocation.repository.js';
import type { SponsorshipRepository } from './sponsorship.repository.js';

interface Deps {
  sponsorships: SponsorshipRepository;
  slots: SlotRepository;
  revocations: SponsorshipRevocationRepository;
  memberships: ClientOf<'memberships'>;
  outcomes: ClaimOutcomes;
  events: EventPublisher;
}

/** What a revocation ended. */
export interface RevokedSponsorshipView {
  sponsorshipId: number;
  membershipIds: number[];
}

/**
 * Takes back what a refunded or lost-dispute gift or sponsorship line granted (docs/adr/0234): the
 * recipients' memberships end (catalog's EndMembership, once each, with the reason), the seats
 * still being granted are settled released first so that no grant finishes after this, and the
 * sponsorship goes with its slots — out of the sponsor's and the recipients' lists. The key is
 * marked first, so that no creation of it makes a sponsorship afterwards. Every step repeats
 * harmlessly; the slots' `sponsor_slot_cleared` is published once (one recorded outcome).
 */
export class SponsorshipRevocation {
  constructor(private readonly deps: Deps) {}

  async revoke({ resourceId, purchaseKey, reason }: RevokeCommand): Promise<RevokedSponsorshipView> {
    await this.deps.revocations.mark(purchaseKey, resourceId, reason);
    const sponsorship = await this.deps.sponsorships.findByPurchase(purchaseKey);
    if (!sponsorship || sponsorship.resource_id !== resourceId) return { sponsorshipId: 0, membershipIds: [] };
    const [slots, activations] = await Promise.all([
      this.deps.slots.listForSponsorships([sponsorship._id]),
      this.deps.slots.activationsOfSponsorships([sponsorship._id]),
    ]);
    const granted = [];
    for (const activation of activations) {
      if (activation.membership_id === null) {
        const { outcome } = await this.deps.outcomes.settle(slotOutcomeKey(activation), 'released');
        if (outcome === 'released') continue;
      }
      granted.push(activation);
    }
    // Read again: a pending grant that won its outcome first has recorded its membership by now.
    const current = await this.deps.slots.activationsOfSponsorships([sponsorship._id]);
    const memberships = granted.flatMap((activation) => {
      const membershipId = current.find((row) => row._id === activation._id)?.membership_id ?? activation.membership_id;
      return membershipId === null ? [] : [{ userId: activation.user_id, membershipId }];
    });
    for (const { userId, membershipId } of memberships) {
      await this.deps.memberships.endMembership({ resourceId, userId, membershipId, reason }).catch((error: unknown) => {
        // A membership catalog does not have (any more) has nothing left to end.
        if (!(isServiceError(error) && error.status === 404)) throw error;
      });
    }
    await this.deps.revocations.keep(purchaseKey, sponsorship);
    await this.deps.slots.deleteOfSponsorship(sponsorship._id);
    await this.deps.sponsorships.delete(resourceId, sponsorship._id);
    const { won } = await this.deps.outcomes.settle(`sponsorship:${sponsorship._id}`, 'released');
    if (won) {
      for (const slot of slots) {
        const seats = activations.filter((activation) => activation.slot_id === slot._id);
        await this.deps.events.publish({
          name: 'sponsor_slot_cleared',
          resourceId,
          payload: {
            slot_id: slot._id,
            sponsorship_id: sponsorship._id,
            sponsor_id: sponsorship.sponsor_id,
            user_ids: seats.map((seat) => seat.user_id),
            membership_ids: memberships
              .filter(({ userId }) => seats.some((seat) => seat.user_id === userId))
              .map((row) => row.membershipId),
          },
        });
      }
    }
    return { sponsorshipId: sponsorship._id, membershipIds: memberships.map((row) => row.membershipId) };
  }
}
