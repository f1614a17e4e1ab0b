import type { EventPublisher } from '@masthead/core/events';
import type { PricingRecord } from '../pricings/pricing.schema.js';
import { claimKey, type MembershipClaimRepository } from './claim.repository.js';
import type { MembershipClaimRecord } from './claim.schema.js';
import type { MembershipHistoryRepository } from './history.repository.js';
import type { MembershipRepository } from './membership.repository.js';
import type { MembershipRecord } from './membership.schema.js';

/**
 * How long a claim without an active membership counts as "being created". A creation takes a
 * few writes (milliseconds); a claim older than this lost its holder (a crash between the claim
 * and the membership) and may be taken over, so the user is not blocked forever.
 */
export const CLAIM_LEASE_MS = 30_000;

interface MembershipCreatorDeps {
  memberships: MembershipRepository;
  history: MembershipHistoryRepository;
  claims: MembershipClaimRepository;
  events: EventPublisher;
  /** Drops the user's cached membership reads in this process, before anyone is answered. */
  changed(userId: number): void;
}

export interface MembershipRequest {
  resourceId: number;
  userId: number;
  pricing: PricingRecord;
  autorenew: boolean;
  startDate: Date;
  endDate: Date | null;
  /**
   * Who asked: `default` (joining a resource), `grant` (an operator), `purchase` (billing's
   * checkout) or `external` (an external store, through billing). Carried in the event.
   */
  source: 'default' | 'grant' | 'purchase' | 'external';
}

/**
 * Creates a user's membership of a pricing unless the user already holds an active one. Two
 * parallel requests must not create two memberships, and FerretDB applies guarded updates as
 * read-then-write (DESIGN.md "MongoDB subset"), so only the caller that inserted the claim
 * document of (resource, user, pricing) creates it.
 */
export class MembershipCreator {
  constructor(private readonly deps: MembershipCreatorDeps) {}

  /** The new membership, or null when the user holds (or is being given) that pricing already. */
  async create(request: MembershipRequest): Promise<MembershipRecord | null> {
    const { resourceId, userId, pricing } = request;
    const claim = await this.acquire(resourceId, userId, pricing._id);
    if (!claim) return null;
    let membership: MembershipRecord;
    try {
      // A membership written before claims existed, or by a path without one, still counts.
      const existing = await this.deps.memberships.findActiveOfPricing(resourceId, userId, pricing._id);
      if (existing) {
        await this.deps.claims.recordMembership(claim, existing._id);
        return null;
      }
      membership = await this.deps.memberships.insert({
        user_id: userId,
        resource_id: resourceId,
        plan_id: pricing.plan_id,
        pricing_id: pricing._id,
        active: true,
        autorenew: request.autorenew,
        is_team_subscription: false,
        start_date: request.startDate,
        end_date: request.endDate,
      });
    } catch (error) {
      // Nothing was created: free the claim so that a retry can proceed.
      await this.deps.claims.release(claim).catch(() => undefined);
      throw error;
    }
    // No transactions on FerretDB: a failure below leaves the membership without its history
    // row or event, and a retry then reports attached=false. The outbox keeps the event once written.
    await this.deps.claims.recordMembership(claim, membership._id);
    await this.deps.history.append({
      membership_id: membership._id,
      user_id: userId,
      resource_id: resourceId,
      pricing_id: pricing._id,
      action: 'created',
    });
    this.deps.changed(userId);
    await this.deps.events.publish({
      name: 'membership_created',
      resourceId,
      payload: {
        membership_id: membership._id,
        user_id: userId,
        pricing_id: pricing._id,
        plan_id: pricing.plan_id,
        source: request.source,
      },
    });
    return membership;
  }

  private async acquire(resourceId: number, userId: number, pricingId: number): Promise<MembershipClaimRecord | null> {
    const key = claimKey(resourceId, userId, pricingId);
    const claim = await this.deps.claims.tryAcquire(key);
    if (claim) return claim;
    const held = await this.deps.claims.find(key);
    // Released between our insert and our read: one more try, then give way.
    if (!held) return this.deps.claims.tryAcquire(key);
    if (Date.now() - held.created_at.getTime() < CLAIM_LEASE_MS) return null;
    if (await this.deps.memberships.findActiveOfPricing(resourceId, userId, pricingId)) return null;
    // Stale: its membership was never created or is no longer active.
    return this.deps.claims.takeOver(held);
  }
}
