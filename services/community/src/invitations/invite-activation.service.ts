import type { EventPublisher } from '@masthead/core/events';
import type { ClientOf } from '@masthead/core/clients';
import type { Membership, Pricing } from '@masthead/proto/catalog';
import type { Caller } from '@masthead/proto/community/teams';
import type { SlotRepository } from '../sponsorships/slot.repository.js';
import type { PaymentCustomers } from '../support/payment-customers.js';
import type { TeamMemberRepository } from '../teams/team-member.repository.js';
import type { TeamRepository } from '../teams/team.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';
import { domainAllowed } from './domains.js';
import { acceptInviteFail, incorrectSubscription, invalidInvite, teamInvitationFail, teamPaymentFail } from './invite.errors.js';
import type { InviteRepository } from './invite.repository.js';
import type { InviteRecord } from './invite.schema.js';

/** Document 2 D: a non-team Pricing invite is rejected on reuse once its activation is 12 hours old. */
const REUSE_WINDOW_MS = 12 * 60 * 60 * 1000;

export interface ActivationOptions {
  /** The resource's `single_subscription` setting. */
  singleSubscription?: boolean;
}

interface Deps {
  invites: InviteRepository;
  teams: TeamRepository;
  members: TeamMemberRepository;
  pricings: ClientOf<'pricings'>;
  memberships: ClientOf<'memberships'>;
  payments: PaymentCustomers;
  events: EventPublisher;
  slots: SlotRepository;
}

/** The checks both invite operations share (document 2 D), with a comparison email or none. */
export function inviteUsable(invite: InviteRecord, email: string, now = new Date()): boolean {
  if (invite.start_date && invite.start_date > now) return false;
  if (invite.end_date && invite.end_date < now) return false;
  return !email || !invite.email || invite.email === email.toLowerCase();
}

/**
 * POST /invite-activation (document 2 D; docs/adr/0134). Unlike the original, the cap and the
 * team's seats are claimed with unique documents before the membership is granted, so parallel
 * activations never exceed either; a failure after a claim releases it.
 */
export class InviteActivationService {
  constructor(private readonly deps: Deps) {}

  async activate(caller: Caller, code: string, options: ActivationOptions = {}): Promise<{ subscriptionId: number | null }> {
    const invite = code ? await this.deps.invites.findByCode(caller.resourceId, code) : null;
    if (!invite || !inviteUsable(invite, caller.email)) throw invalidInvite();
    const team = invite.team_id ? await this.team(invite.team_id, caller.email) : null;
    const pricing = invite.pricing_id ? await this.pricing(caller, invite.pricing_id) : null;
    if (team && pricing && pricing.price > 0 && !(await this.deps.payments.hasCustomer(caller.resourceId, team.owner_id))) {
      throw teamPaymentFail();
    }

    const claim = await this.deps.invites.claimActivation(invite, caller.userId);
    if ('full' in claim) throw invalidInvite();
    if ('existing' in claim) {
      // An existing user cannot reuse a team invite; a Pricing code may be re-run for 12 hours.
      if (team || Date.now() - new Date(claim.existing.created_at).getTime() >= REUSE_WINDOW_MS) throw invalidInvite();
    }
    const release = async () => {
      if ('row' in claim) await this.deps.invites.releaseActivation(claim.row._id);
    };

    let seatId: number | null = null;
    if (team) {
      try {
        seatId = await this.joinTeam(team, caller.userId, pricing?.id ?? null);
      } catch (error) {
        await release();
        throw error;
      }
    }
    // A paid Pricing of a non-team invite is not granted: the activation succeeds and answers its
    // subscription_id, for the member to buy it (document 2 D; docs/adr/0137). The team owner
    // pays for team seats.
    if (pricing && (team || pricing.price === 0)) {
      let granted: Membership;
      try {
        granted = await this.deps.memberships.grantMembership(
          { resourceId: caller.resourceId, userId: caller.userId, pricingId: pricing.id, autorenew: false },
          { idempotent: true },
        );
      } catch {
        if (seatId !== null) await this.deps.members.delete(seatId);
        await release();
        throw acceptInviteFail();
      }
      await this.replaceOthers(caller, pricing, granted.id, options.singleSubscription === true);
    }
    await this.notify(caller, invite);
    return { subscriptionId: !team && pricing ? pricing.id : null };
  }

  /**
   * The granted membership replaces the member's other active memberships of the same plan, and
   * with the resource's `single_subscription` every other one of the resource, sponsored ones
   * included (document 2 D; docs/adr/0137). Like the original's unchecked saves, a failed detach
   * does not undo the grant.
   */
  private async replaceOthers(caller: Caller, pricing: Pricing, keepId: number, single: boolean): Promise<void> {
    const { resourceId, userId } = caller;
    try {
      const { items } = await this.deps.memberships.listMemberships({ resourceId, userId, includeHistory: false }, { idempotent: true });
      const replaced = items.filter(
        (membership) => membership.active && membership.id !== keepId && (single || membership.pricing?.planId === pricing.planId),
      );
      await Promise.allSettled(
        replaced.map((membership) => this.deps.memberships.detachMembership({ resourceId, userId, membershipId: membership.id })),
      );
      if (single) await this.endSponsoredSeats(caller, new Set(replaced.map((membership) => membership.id)));
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
  private async endSponsoredSeats(caller: Caller, replacedIds: Set<number>): Promise<void> {
    const seats = (await this.deps.slots.activationsOfUser(caller.resourceId, caller.userId)).filter(
      (seat) => seat.membership_id !== null && replacedIds.has(seat.membership_id),
    );
    for (const seat of seats) {
      const slot = await this.deps.slots.find(caller.resourceId, seat.slot_id);
      if (slot && slot.seats > 1) await this.deps.slots.deleteActivation(seat._id);
      else if (seat.is_paying_by_sponsor) await this.deps.slots.updateActivation(seat._id, { is_paying_by_sponsor: false });
      else continue;
      await this.deps.events.publish({
        name: 'sponsor_payment_turned_off',
        resourceId: caller.resourceId,
        payload: { slot_id: seat.slot_id, sponsorship_id: seat.sponsorship_id, user_id: caller.userId, membership_id: seat.membership_id },
      });
    }
  }

  /** The relationship: reactivated as an active `user` when it exists, else a new row on a seat. */
  private async joinTeam(team: TeamRecord, userId: number, pricingId: number | null): Promise<number | null> {
    const claim = await this.deps.members.claimSeat(
      { team_id: team._id, user_id: userId, role: 'user', status: 'active', pricing_id: pricingId },
      team.member_limit,
    );
    if ('full' in claim) throw teamInvitationFail();
    if ('row' in claim) return claim.row._id;
    // The owner keeps the owner role (docs/adr/0134); anyone else becomes an active user.
    const role = claim.existing.role === 'owner' ? 'owner' : 'user';
    await this.deps.members.update(team._id, userId, {
      role,
      status: 'active',
      pricing_id: pricingId ?? claim.existing.pricing_id ?? null,
    });
    return null;
  }

  private async team(teamId: number, email: string): Promise<TeamRecord> {
    const team = await this.deps.teams.findById(teamId);
    if (!team || !team.active) throw teamInvitationFail();
    if (email && !domainAllowed(email, team.allowed_domains ?? [])) throw teamInvitationFail();
    return team;
  }

  private async pricing(caller: Caller, pricingId: number): Promise<Pricing> {
    const pricing = await this.deps.pricings
      .getPricing({ resourceId: caller.resourceId, pricingId }, { idempotent: true })
      .catch(() => null);
    if (!pricing?.active) throw incorrectSubscription();
    return pricing;
  }

  private async notify(caller: Caller, invite: InviteRecord): Promise<void> {
    try {
      await this.deps.events.publish({
        name: 'invite_activated',
        resourceId: caller.resourceId,
        payload: { invite_id: invite._id, team_id: invite.team_id, user_id: caller.userId, subscription_id: invite.pricing_id },
      });
    } catch {
      /* document 2 Events: notification failures are swallowed */
    }
  }
}
