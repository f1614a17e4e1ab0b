import type { ClientOf } from '@masthead/core/clients';
import { isServiceError } from '@masthead/core/errors';
import type { Pricing } from '@masthead/proto/catalog';
import type { Caller } from '@masthead/proto/community/teams';
import { isGrantRefused } from '../support/grant-refusal.js';
import type { PaymentCustomers } from '../support/payment-customers.js';
import type { PricingSeats } from '../teams/pricing-seats.js';
import type { TeamMemberRepository } from '../teams/team-member.repository.js';
import type { TeamRepository } from '../teams/team.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';
import type { ActivationGrant, ClaimedActivation } from './activation-grant.js';
import type { ActivationRecord } from './activation.schema.js';
import { domainAllowed } from './domains.js';
import { incorrectSubscription, invalidInvite, teamInvitationFail, teamPaymentFail } from './invite.errors.js';
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
  pricingSeats: PricingSeats;
  pricings: ClientOf<'pricings'>;
  payments: PaymentCustomers;
  grant: ActivationGrant;
}

/** The checks both invite operations share (document 2 D), with a comparison email or none. */
export function inviteUsable(invite: InviteRecord, email: string, now = new Date()): boolean {
  if (invite.start_date && invite.start_date > now) return false;
  if (invite.end_date && invite.end_date < now) return false;
  return !email || !invite.email || invite.email === email.toLowerCase();
}

/**
 * POST /invite-activation (document 2 D; docs/adr/0134, 0233). Unlike the original, every cap is
 * claimed with unique documents before the membership is granted — the invite's activation
 * slot, a seat of the team (`member_limit`) and a seat of the team Pricing (`users_limit`) — so
 * parallel activations never exceed any of them. The claims and the grant succeed or fail
 * together (ActivationGrant).
 */
export class InviteActivationService {
  constructor(private readonly deps: Deps) {}

  async activate(caller: Caller, code: string, options: ActivationOptions = {}): Promise<{ subscriptionId: number | null }> {
    const invite = code ? await this.deps.invites.findByCode(caller.resourceId, code) : null;
    if (!invite || !inviteUsable(invite, caller.email)) throw invalidInvite();
    const team = invite.team_id ? await this.team(invite.team_id, caller.email) : null;
    const pricing = invite.pricing_id ? await this.pricing(caller.resourceId, invite.pricing_id) : null;
    if (team && pricing && pricing.price > 0 && !(await this.deps.payments.hasCustomer(caller.resourceId, team.owner_id))) {
      throw teamPaymentFail();
    }

    const claim = await this.deps.invites.claimActivation(invite, caller.userId, options.singleSubscription === true);
    if ('full' in claim) throw invalidInvite();
    const activation = 'existing' in claim ? claim.existing : claim.row;
    // An activation whose grant is pending is finished by its retry (docs/adr/0233). Otherwise an
    // existing user cannot reuse a team invite, and a Pricing code may be re-run for 12 hours.
    if ('existing' in claim && activation.state !== 'granting') {
      if (team || Date.now() - new Date(activation.created_at).getTime() >= REUSE_WINDOW_MS) throw invalidInvite();
    }
    await this.complete({ activation, invite, pricing, team });
    return { subscriptionId: !team && pricing ? pricing.id : null };
  }

  /**
   * The pending-grant pass (docs/adr/0233): activations still granting, claimed before
   * `claimedBefore` (their requests are over), are finished — or given back when what they were
   * for is gone for good. Answers how many were finished.
   */
  async finishPending(claimedBefore: Date, limit: number): Promise<number> {
    let finished = 0;
    for (const activation of await this.deps.invites.pendingActivations(claimedBefore, limit)) {
      const claimed = await this.reload(activation);
      if (!claimed) continue;
      try {
        await this.complete(claimed);
        finished++;
      } catch (error) {
        // A grant still unknown waits for the next pass; a refusal gave its claims back.
        if (!isServiceError(error)) throw error;
      }
    }
    return finished;
  }

  /** What a pending activation was for, read again; null (and its claims given back) when that is gone. */
  private async reload(activation: ActivationRecord): Promise<ClaimedActivation | null> {
    const invite = await this.deps.invites.findById(activation.invite_id);
    const team = invite?.team_id ? await this.deps.teams.findById(invite.team_id) : null;
    const pricing = invite?.pricing_id ? await this.currentPricing(invite.resource_id, invite.pricing_id) : null;
    const teamGone = Boolean(invite?.team_id) && !team?.active;
    const pricingGone = Boolean(invite?.pricing_id) && !pricing;
    if (invite && !teamGone && !pricingGone) return { activation, invite, pricing, team };
    // A deleted team took its invites, relationships and Pricing seats: only the slot is left.
    await this.deps.grant.release(activation, invite?.team_id ?? null);
    return null;
  }

  /** Takes the activation's team claims (again, for a pending one: each claim is idempotent), then grants. */
  private async complete(claimed: ClaimedActivation): Promise<void> {
    if (claimed.team && claimed.activation.state === 'granting') await this.joinTeam({ ...claimed, team: claimed.team });
    await this.deps.grant.finish(claimed);
  }

  /**
   * The activation's team claims: the relationship on a seat of the team (reactivated as an
   * active `user` when it exists, the owner keeping `owner`) and a seat of the invite's Pricing.
   * A full team or Pricing gives back what the activation claimed: 406 team_invitation_fail.
   */
  private async joinTeam(claimed: ClaimedActivation & { team: TeamRecord }): Promise<void> {
    const { activation, team, pricing } = claimed;
    const userId = activation.user_id;
    const pricingId = pricing?.id ?? null;
    const seat = await this.deps.members.claimSeat(
      { team_id: team._id, user_id: userId, role: 'user', status: 'active', pricing_id: pricingId, activation_id: activation._id },
      team.member_limit,
    );
    if ('full' in seat) return this.refuse(claimed);
    if ('existing' in seat && seat.existing.activation_id !== activation._id) {
      const { role, status } = seat.existing;
      // Recorded before the change (once), so that a release can put the relationship back.
      if (!activation.previous_relationship) {
        activation.previous_relationship = { role, status, pricing_id: seat.existing.pricing_id ?? null };
        await this.deps.invites.recordPrevious(activation._id, activation.previous_relationship);
      }
      await this.deps.members.update(team._id, userId, {
        role: role === 'owner' ? 'owner' : 'user',
        status: 'active',
        pricing_id: pricingId ?? seat.existing.pricing_id ?? null,
      });
    }
    if (!(await this.deps.pricingSeats.take(team._id, userId, pricing, activation._id))) return this.refuse(claimed);
  }

  private async refuse(claimed: ClaimedActivation): Promise<never> {
    await this.deps.grant.release(claimed.activation, claimed.invite.team_id);
    throw teamInvitationFail();
  }

  private async team(teamId: number, email: string): Promise<TeamRecord> {
    const team = await this.deps.teams.findById(teamId);
    if (!team || !team.active) throw teamInvitationFail();
    if (email && !domainAllowed(email, team.allowed_domains ?? [])) throw teamInvitationFail();
    return team;
  }

  private async pricing(resourceId: number, pricingId: number): Promise<Pricing> {
    const pricing = await this.deps.pricings.getPricing({ resourceId, pricingId }, { idempotent: true }).catch(() => null);
    if (!pricing?.active) throw incorrectSubscription();
    return pricing;
  }

  /** The Pricing while it is an active Pricing of the resource; null when catalog says it is not (an outage throws). */
  private async currentPricing(resourceId: number, pricingId: number): Promise<Pricing | null> {
    try {
      const pricing = await this.deps.pricings.getPricing({ resourceId, pricingId }, { idempotent: true });
      return pricing.active ? pricing : null;
    } catch (error) {
      if (isGrantRefused(error)) return null;
      throw error;
    }
  }
}
