import type { PlanRepository } from '../plans/plan.repository.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import type { PricingRepository } from '../pricings/pricing.repository.js';
import type { PricingRecord } from '../pricings/pricing.schema.js';
import type { MembershipHistoryRepository } from './history.repository.js';
import type { MembershipChangeRecord } from './history.schema.js';
import type { MembershipRepository } from './membership.repository.js';
import type { MembershipRecord } from './membership.schema.js';

interface MembershipReaderDeps {
  memberships: MembershipRepository;
  history: MembershipHistoryRepository;
  pricings: PricingRepository;
  plans: PlanRepository;
}

/** A membership with its pricing and that pricing's plan (null if either row is gone). */
export interface MembershipView {
  membership: MembershipRecord;
  pricing: PricingRecord | null;
  plan: PlanRecord | null;
}

export interface MembershipListView {
  items: MembershipView[];
  history: MembershipChangeRecord[];
}

const distinct = (values: number[]) => [...new Set(values)];

/** Assembles the member-facing membership list with a fixed number of queries. */
export class MembershipReader {
  constructor(private readonly deps: MembershipReaderDeps) {}

  async list(resourceId: number, userId: number, includeHistory: boolean): Promise<MembershipListView> {
    const [memberships, history] = await Promise.all([
      this.deps.memberships.listActive(resourceId, userId),
      includeHistory ? this.deps.history.listForUser(resourceId, userId) : Promise.resolve([]),
    ]);
    return { items: await this.withPricings(resourceId, memberships), history };
  }

  /** Joins pricings and plans with one `$in` query each, never one per membership. */
  withPricings(resourceId: number, memberships: MembershipRecord[]): Promise<MembershipView[]> {
    return this.withPricingsAcross([resourceId], memberships);
  }

  /** The same join for memberships of several resources (the grouped member reads). */
  async withPricingsAcross(resourceIds: number[], memberships: MembershipRecord[]): Promise<MembershipView[]> {
    const [pricings, plans] = await Promise.all([
      this.deps.pricings.findByIdsAcross(resourceIds, distinct(memberships.map((row) => row.pricing_id))),
      this.deps.plans.findByIdsAcross(resourceIds, distinct(memberships.map((row) => row.plan_id))),
    ]);
    const pricingById = new Map(pricings.map((pricing) => [pricing._id, pricing]));
    const planById = new Map(plans.map((plan) => [plan._id, plan]));
    return memberships.map((membership) => {
      const pricing = pricingById.get(membership.pricing_id) ?? null;
      return { membership, pricing, plan: pricing ? (planById.get(pricing.plan_id) ?? null) : null };
    });
  }
}
