import { subscriptionNotFound } from '@masthead/core/errors';
import type { DomainEvents, EventPublisher } from '@masthead/core/events';

type MembershipChangedPayload = Pick<DomainEvents['membership_detached'], 'membership_id' | 'user_id' | 'pricing_id' | 'plan_id'>;
import { claimKey, type MembershipClaimRepository } from './claim.repository.js';
import type { MembershipDetachmentRepository } from './detachment.repository.js';
import type { MembershipHistoryRepository } from './history.repository.js';
import type { EndReason, MembershipAction } from './history.schema.js';
import { endOfPeriod } from '../pricings/period.js';
import type { PricingRepository } from '../pricings/pricing.repository.js';
import type { RenewalMarkerRepository } from './renewal-marker.repository.js';
import type { MembershipRepository } from './membership.repository.js';
import type { MembershipRecord } from './membership.schema.js';

interface MembershipChangerDeps {
  memberships: MembershipRepository;
  history: MembershipHistoryRepository;
  claims: MembershipClaimRepository;
  detachments: MembershipDetachmentRepository;
  renewals: RenewalMarkerRepository;
  pricings: PricingRepository;
  events: EventPublisher;
  /** Drops the user's cached membership reads in this process, before anyone is answered. */
  changed(userId: number): void;
}

/** Who asks: a member acting on its own membership in the resource it signed in to. */
export interface MembershipTarget {
  resourceId: number;
  userId: number;
  membershipId: number;
}

/**
 * The member's own changes to a membership: renewal flag and detachment. Each change appends a
 * history row and publishes an event (through the outbox); a request that changes nothing
 * writes neither. A membership of another user or resource, or one no longer active, is
 * 404 subscription_not_found.
 */
export class MembershipChanger {
  constructor(private readonly deps: MembershipChangerDeps) {}

  /** Sets autorenew; `membership_renewal_changed` {…, autorenew} when the value changed. */
  async setRenewal(target: MembershipTarget, autorenew: boolean): Promise<MembershipRecord> {
    const current = await this.findOwned(target);
    if (current.autorenew === autorenew) return current;
    const updated = await this.deps.memberships.setAutorenew(target.resourceId, target.userId, target.membershipId, autorenew);
    if (!updated) {
      // Changed or detached by a parallel request: report what is there now.
      return this.findOwned(target);
    }
    await this.record(updated, 'renewal_changed', 'membership_renewal_changed', { autorenew });
    return updated;
  }

  /**
   * Detaches the membership: it becomes inactive (kept for history, never deleted) and its claim
   * is released, so that the user can be given that pricing again at once.
   */
  async detach(target: MembershipTarget): Promise<MembershipRecord> {
    await this.findOwned(target);
    const detached = await this.deps.memberships.deactivate(target.resourceId, target.userId, target.membershipId);
    // Only one caller records the detachment, also where both deactivations "succeeded".
    if (!detached || !(await this.deps.detachments.record(detached._id))) throw subscriptionNotFound();
    await this.releaseClaim(detached);
    await this.record(detached, 'detached', 'membership_detached', {});
    return detached;
  }

  /** The user's membership in the resource, active or not (billing's refetch). */
  async get({ resourceId, userId, membershipId }: MembershipTarget): Promise<MembershipRecord> {
    const membership = membershipId > 0 ? await this.deps.memberships.findOwned(resourceId, userId, membershipId) : null;
    if (!membership) throw subscriptionNotFound();
    return membership;
  }

  /**
   * A paid renewal (docs/adr/0145): the end date moves one period of the Pricing on from `from`,
   * once per period. A membership that no longer ends at `from` (renewed already, changed) is
   * answered as it is; an inactive one is 404.
   */
  async renew(target: MembershipTarget, from: Date): Promise<MembershipRecord> {
    const current = await this.findOwned(target);
    if (current.end_date?.getTime() !== from.getTime()) return current;
    const pricing = await this.deps.pricings.findInResource(current.resource_id, current.pricing_id);
    const next = pricing ? endOfPeriod(from, pricing.period) : null;
    if (!next) return current;
    const renewed = (await this.deps.memberships.moveEndDate(current._id, from, next)) ?? (await this.get(target));
    if (renewed.end_date?.getTime() === next.getTime() && (await this.deps.renewals.record(current._id, from))) {
      await this.record(renewed, 'renewed', 'membership_renewed', { end_date: next.toISOString() });
    }
    return renewed;
  }

  /**
   * Ends the membership for billing's `reason` (docs/adr/0145, 0146): inactive, claim released, a
   * history row and membership_ended once. An inactive membership is answered as it is.
   */
  async end(target: MembershipTarget, reason: EndReason): Promise<MembershipRecord> {
    const current = await this.get(target);
    if (!current.active) return current;
    const ended = await this.deps.memberships.deactivate(target.resourceId, target.userId, target.membershipId);
    if (!ended || !(await this.deps.detachments.record(ended._id))) return this.get(target);
    await this.releaseClaim(ended);
    await this.record(ended, reason, 'membership_ended', { reason });
    return ended;
  }

  /** New end date and/or autorenew of an active membership; a `changed` row when something changed. */
  async changeTerms(target: MembershipTarget, terms: { endDate?: Date; autorenew?: boolean }): Promise<MembershipRecord> {
    const current = await this.findOwned(target);
    const set: { end_date?: Date; autorenew?: boolean } = {};
    if (terms.endDate && current.end_date?.getTime() !== terms.endDate.getTime()) set.end_date = terms.endDate;
    if (terms.autorenew !== undefined && terms.autorenew !== current.autorenew) set.autorenew = terms.autorenew;
    if (Object.keys(set).length === 0) return current;
    const changed = (await this.deps.memberships.setTerms(current._id, set)) ?? (await this.findOwned(target));
    await this.record(changed, 'changed', 'membership_changed', {
      end_date: changed.end_date?.toISOString() ?? null,
      autorenew: changed.autorenew,
    });
    return changed;
  }

  private async findOwned({ resourceId, userId, membershipId }: MembershipTarget): Promise<MembershipRecord> {
    const membership = membershipId > 0 ? await this.deps.memberships.findActiveOwned(resourceId, userId, membershipId) : null;
    if (!membership) throw subscriptionNotFound();
    return membership;
  }

  /**
   * Releases the claim that stands for this membership. A claim recording no membership yet
   * belongs to a creation in flight and is left alone; a membership created before claims
   * existed has none.
   */
  private async releaseClaim(membership: MembershipRecord): Promise<void> {
    const claim = await this.deps.claims.find(claimKey(membership.resource_id, membership.user_id, membership.pricing_id));
    if (claim?.membership_id === membership._id) await this.deps.claims.release(claim);
  }

  // No transactions on FerretDB: a failure between the update and these writes leaves the change
  // without its history row or event (the same trade-off as MembershipCreator).
  private async record<
    E extends 'membership_renewal_changed' | 'membership_detached' | 'membership_renewed' | 'membership_ended' | 'membership_changed',
  >(membership: MembershipRecord, action: MembershipAction, event: E, extra: Omit<DomainEvents[E], keyof MembershipChangedPayload>) {
    await this.deps.history.append({
      membership_id: membership._id,
      user_id: membership.user_id,
      resource_id: membership.resource_id,
      pricing_id: membership.pricing_id,
      action,
    });
    this.deps.changed(membership.user_id);
    const payload = {
      membership_id: membership._id,
      user_id: membership.user_id,
      pricing_id: membership.pricing_id,
      plan_id: membership.plan_id,
      ...extra,
    } as DomainEvents[E];
    await this.deps.events.publish({ name: event, resourceId: membership.resource_id, payload });
  }
}
