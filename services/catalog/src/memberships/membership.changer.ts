import { subscriptionNotFound } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import { claimKey, type MembershipClaimRepository } from './claim.repository.js';
import type { MembershipDetachmentRepository } from './detachment.repository.js';
import type { MembershipHistoryRepository } from './history.repository.js';
import type { MembershipAction } from './history.schema.js';
import type { MembershipRepository } from './membership.repository.js';
import type { MembershipRecord } from './membership.schema.js';

interface MembershipChangerDeps {
  memberships: MembershipRepository;
  history: MembershipHistoryRepository;
  claims: MembershipClaimRepository;
  detachments: MembershipDetachmentRepository;
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
  private async record(
    membership: MembershipRecord,
    action: MembershipAction,
    event: 'membership_renewal_changed' | 'membership_detached',
    extra: { autorenew?: boolean },
  ) {
    await this.deps.history.append({
      membership_id: membership._id,
      user_id: membership.user_id,
      resource_id: membership.resource_id,
      pricing_id: membership.pricing_id,
      action,
    });
    this.deps.changed(membership.user_id);
    await this.deps.events.publish({
      name: event,
      resourceId: membership.resource_id,
      payload: {
        membership_id: membership._id,
        user_id: membership.user_id,
        pricing_id: membership.pricing_id,
        plan_id: membership.plan_id,
        ...extra,
      },
    });
  }
}
