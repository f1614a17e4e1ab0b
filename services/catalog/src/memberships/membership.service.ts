import type { PartitionedReadCache } from '@masthead/core/cache';
import {} from '@masthead/core/errors';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import { endOfPeriod } from '../pricings/period.js';
import { pricingNotFound } from '../pricings/pricing.errors.js';
import { membershipPending } from './membership.errors.js';
import type { PricingRepository } from '../pricings/pricing.repository.js';
import type { AttachDefaultCommand, GrantMembershipCommand } from './membership.command.js';
import type { EndReason, MembershipChangeRecord } from './history.schema.js';
import type { MembershipHistoryRepository } from './history.repository.js';
import type { MembershipChanger, MembershipTarget } from './membership.changer.js';
import type { MembershipCreator } from './membership.creator.js';
import type { MembershipRepository } from './membership.repository.js';
import type { MembershipRecord } from './membership.schema.js';
import type { MembershipListView, MembershipReader, MembershipView } from './membership.reader.js';

interface MembershipServiceDeps {
  pricings: PricingRepository;
  memberships: MembershipRepository;
  reader: MembershipReader;
  creator: MembershipCreator;
  changer: MembershipChanger;
  history: MembershipHistoryRepository;
  /** The users' membership lists, per user (dropped by every membership write, ADR 0043). */
  cache: PartitionedReadCache;
}

export interface MembershipHistoryPage {
  items: MembershipChangeRecord[];
  paginator: Paginator;
}

/** Thrown by GrantMembership when a parallel request is still creating the same membership. */
export class MembershipService {
  constructor(private readonly deps: MembershipServiceDeps) {}

  list(resourceId: number, userId: number, includeHistory: boolean): Promise<MembershipListView> {
    return this.deps.cache.read(userId, `${resourceId}:${includeHistory}`, () => this.deps.reader.list(resourceId, userId, includeHistory));
  }

  /** GET /user/plans/history: the user's membership changes in the resource, newest first. */
  async history(resourceId: number, userId: number, request: PageRequest): Promise<MembershipHistoryPage> {
    const page = await this.deps.history.listPage(resourceId, userId, request);
    return { items: page.rows, paginator: toPaginator(request, page.total) };
  }

  /** PUT /user/subscriptions/{id}; 404 subscription_not_found (see MembershipChanger). */
  async setRenewal(target: MembershipTarget, autorenew: boolean): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.setRenewal(target, autorenew));
  }

  /** DELETE /user/subscriptions/{id}; 404 subscription_not_found (see MembershipChanger). */
  async detach(target: MembershipTarget): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.detach(target));
  }

  /**
   * Gives a joining member the resource's default pricing. False (not an error) when the pricing
   * is absent, of another resource or inactive, or when the user holds it already: joining must
   * not fail because of the default membership. With `singleSubscription` (the resource's
   * `single_subscription`) also false when the user holds any active membership there.
   */
  async attachDefault({ resourceId, userId, pricingId, singleSubscription }: AttachDefaultCommand): Promise<boolean> {
    const pricing = pricingId > 0 ? await this.deps.pricings.findInResource(resourceId, pricingId) : null;
    if (!pricing || !pricing.active) return false;
    if (singleSubscription && (await this.deps.memberships.hasActiveInResource(resourceId, userId))) return false;
    const startDate = new Date();
    const created = await this.deps.creator.create({
      resourceId,
      userId,
      pricing,
      autorenew: false,
      startDate,
      endDate: endOfPeriod(startDate, pricing.period),
      source: 'default',
    });
    return created !== null;
  }

  /**
   * Operator grant of any pricing of the resource, private or inactive included (comps and
   * legacy pricings are granted by hand). Without an end date it ends after the pricing's
   * period, like a default membership. Idempotent like the other operator calls: when the
   * user already holds the pricing (a fixture loaded again), that membership is returned
   * unchanged. 404 pricing_not_found.
   */
  async grant(command: GrantMembershipCommand): Promise<MembershipView> {
    const { resourceId, userId, pricingId } = command;
    const pricing = await this.deps.pricings.findInResource(resourceId, pricingId);
    if (!pricing) throw pricingNotFound();
    const startDate = new Date();
    const membership =
      (await this.deps.creator.create({
        resourceId,
        userId,
        pricing,
        autorenew: command.autorenew,
        startDate,
        endDate: command.endDate ?? endOfPeriod(startDate, pricing.period),
        source: command.source,
      })) ?? (await this.deps.memberships.findActiveOfPricing(resourceId, userId, pricingId));
    if (!membership) throw membershipPending();
    return this.view(resourceId, membership);
  }

  /** Billing's refetch: the user's membership, active or not; 404 subscription_not_found. */
  async get(target: MembershipTarget): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.get(target));
  }

  /** RenewMembership (docs/adr/0145); 404 subscription_not_found. */
  async renew(target: MembershipTarget, fromEndDate: Date): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.renew(target, fromEndDate));
  }

  /** EndMembership (docs/adr/0145, 0146); 404 subscription_not_found. */
  async end(target: MembershipTarget, reason: EndReason): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.end(target, reason));
  }

  /** ChangeMembershipTerms (docs/adr/0146); 404 subscription_not_found. */
  async changeTerms(target: MembershipTarget, terms: { endDate?: Date; autorenew?: boolean }): Promise<MembershipView> {
    return this.view(target.resourceId, await this.deps.changer.changeTerms(target, terms));
  }

  private async view(resourceId: number, membership: MembershipRecord): Promise<MembershipView> {
    const [view] = await this.deps.reader.withPricings(resourceId, [membership]);
    if (!view) throw pricingNotFound();
    return view;
  }
}
