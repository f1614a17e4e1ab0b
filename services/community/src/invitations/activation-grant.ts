import type { ClientOf } from '@masthead/core/clients';
import type { EventPublisher } from '@masthead/core/events';
import type { Pricing } from '@masthead/proto/catalog';
import type { SlotRepository } from '../sponsorships/slot.repository.js';
import type { ClaimOutcomes } from '../support/claim-outcomes.js';
import { isGrantRefused } from '../support/grant-refusal.js';
import type { PricingSeats } from '../teams/pricing-seats.js';
import type { TeamMemberRepository } from '../teams/team-member.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';
import type { ActivationRecord } from './activation.schema.js';
import { acceptInviteFail } from './invite.errors.js';
import type { InviteRepository } from './invite.repository.js';
import type { InviteRecord } from './invite.schema.js';

/** An activation whose claims are all taken, with what its grant needs. */
export interface ClaimedActivation {
  activation: ActivationRecord;
  invite: InviteRecord;
  /** The invite's Pricing, when it has one that is still an active Pricing of the resource. */
  pricing: Pricing | null;
  team: TeamRecord | null;
}

interface Deps {
  invites: InviteRepository;
  members: TeamMemberRepository;
  pricingSeats: PricingSeats;
  memberships: ClientOf<'memberships'>;
  outcomes: ClaimOutcomes;
  events: EventPublisher;
  slots: SlotRepository;
}

const outcomeKey = (activation: ActivationRecord) => `invite:${activation._id}`;

/**
 * The grant that an activation's claims (its slot, its team seat, its seat of the team Pricing)
 * stand for, and their release (docs/adr/0233, 0137). A claim and its grant succeed or fail
 * together: a grant catalog refused for good gives the claims back; one whose outcome is unknown
 * (a deadline, an outage: the membership may exist) keeps them, and the member's retry or the
 * pending-grant pass finishes it, since the grant is idempotent. One outcome is recorded per
 * activation (ClaimOutcomes), so the replacements and the event happen once.
 */
export class ActivationGrant {
  constructor(private readonly deps: Deps) {}

  /** Grants what the activation stands for; 406 accept_invite_fail when it cannot now (released when refused for good). */
  async finish({ activation, invite, pricing, team }: ClaimedActivation): Promise<void> {
    let membershipId: number | null = null;
    // A paid Pricing of a non-team invite is not granted: the member is led to buy it (document
    // 2 D; docs/adr/0137). The team owner pays for team seats.
    if (pricing && (team || pricing.price === 0)) {
      try {
        const granted = await this.deps.memberships.grantMembership(
          { resourceId: invite.resource_id, userId: activation.user_id, pricingId: pricing.id, autorenew: false },
          { idempotent: true },
        );
        membershipId = granted.id;
      } catch (error) {
        if (isGrantRefused(error)) await this.release(activation, invite.team_id);
        throw acceptInviteFail();
      }
    }
    const { outcome, won } = await this.deps.outcomes.settle(outcomeKey(activation), 'granted');
    if (outcome === 'released') throw acceptInviteFail();
    // Also when another finisher won: a crash may have come between its outcome and its mark.
    await this.deps.invites.markGranted(activation._id, membershipId);
    if (!won) return;
    if (team && pricing) await this.deps.pricingSeats.keepOnly(team._id, activation.user_id, pricing.id);
    if (pricing && membershipId !== null) {
      await this.replaceOthers(invite.resource_id, activation.user_id, pricing, membershipId, activation.single_subscription === true);
    }
    await this.notify(activation, invite);
  }

  /**
   * Gives back every claim of the activation, unless it was granted meanwhile: its seat of the
   * team Pricing, the relationship it created in the team (or the one it reactivated, as it
   * was), and its slot.
   */
  async release(activation: ActivationRecord, teamId: number | null): Promise<void> {
    const { outcome } = await this.deps.outcomes.settle(outcomeKey(activation), 'released');
    if (outcome === 'granted') return;
    if (teamId) {
      await this.deps.pricingSeats.giveBack(teamId, activation.user_id, activation._id);
      const previous = activation.previous_relationship;
      if (previous) await this.deps.members.update(teamId, activation.user_id, previous);
      else await this.deps.members.deleteOfActivation(teamId, activation.user_id, activation._id);
    }
    await this.deps.invites.releaseActivation(activation._id);
  }

  /**
   * The granted membership replaces the member's other active memberships of the same plan, and
   * with the resource's `single_subscription` every other one of the resource, sponsored ones
   * included (document 2 D; docs/adr/0137). Like the original's unchecked saves, a failed detach
   * does not undo the grant.
   */
  private async replaceOthers(resourceId: number, userId: number, pricing: Pricing, keepId: number, single: boolean): Promise<void> {
    try {
      const { items } = await this.deps.memberships.listMemberships({ resourceId, userId, includeHistory: false }, { idempotent: true });
      const replaced = items.filter(
        (membership) => membership.active && membership.id !== keepId && (single || membership.pricing?.planId === pricing.planId),
      );
      await Promise.allSettled(
        replaced.map((membership) => this.deps.memberships.detachMembership({ resourceId, userId, membershipId: membership.id })),
      );
      if (single) await this.endSponsoredSeats(resourceId, userId, new Set(replaced.map((membership) => membership.id)));
    } catch {
      /* the membership is granted; replacing the others is best effort (docs/adr/0137) */
    }
  }

  /**
   * "Clear or stop sponsorships" (document 2 D): the seats whose memberships were replaced stop
   * costing their sponsors. A seat of a multi-seat slot is cleared (freed for someone else); a
   * gift, bound to this member, is stopped (the sponsor pays no more). Either way the sponsor's
   * payment for the member ends (`sponsor_payment_turned_off`, docs/adr/0218).
   */
  private async endSponsoredSeats(resourceId: number, userId: number, replacedIds: Set<number>): Promise<void> {
    const seats = (await this.deps.slots.activationsOfUser(resourceId, userId)).filter(
      (seat) => seat.membership_id !== null && replacedIds.has(seat.membership_id),
    );
    for (const seat of seats) {
      const slot = await this.deps.slots.find(resourceId, seat.slot_id);
      if (slot && slot.seats > 1) await this.deps.slots.deleteActivation(seat._id);
      else if (seat.is_paying_by_sponsor) await this.deps.slots.updateActivation(seat._id, { is_paying_by_sponsor: false });
      else continue;
      await this.deps.events.publish({
        name: 'sponsor_payment_turned_off',
        resourceId,
        payload: { slot_id: seat.slot_id, sponsorship_id: seat.sponsorship_id, user_id: userId, membership_id: seat.membership_id },
      });
    }
  }

  private async notify(activation: ActivationRecord, invite: InviteRecord): Promise<void> {
    try {
      await this.deps.events.publish({
        name: 'invite_activated',
        resourceId: invite.resource_id,
        payload: { invite_id: invite._id, team_id: invite.team_id, user_id: activation.user_id, subscription_id: invite.pricing_id },
      });
    } catch {
      /* document 2 Events: notification failures are swallowed */
    }
  }
}
