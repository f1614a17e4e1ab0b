import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { MembershipView } from '../memberships/membership.reader.js';
import type { MembershipRepository } from '../memberships/membership.repository.js';
import type { PlanRepository } from '../plans/plan.repository.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import type { PricingRepository } from '../pricings/pricing.repository.js';
import { buildCompositeQuery, compareValues } from '../support/composite-list.js';
import { USER_PLAN_LIST, type UserPlanEntity } from './user-plan.list-spec.js';

interface UserPlansReaderDeps {
  memberships: MembershipRepository;
  plans: PlanRepository;
  pricings: PricingRepository;
}

/** A plan of the user and the one membership that represents it (`subscription` on the wire). */
export interface UserPlanView {
  plan: PlanRecord;
  membership: MembershipView;
}

export interface UserPlanPageView {
  items: UserPlanView[];
  paginator: Paginator;
}

const distinct = (values: number[]) => [...new Set(values)];

/**
 * GET /user/plans: the distinct plans of the user's active memberships in the resource. Plan and
 * pricing flags do not filter (document 1 F: no active/private filter); a detached membership
 * is no longer the user's. Filters span the plan, the pricing and the membership, so the rows
 * are joined in memory: a member holds a handful of memberships per resource, never a page's
 * worth of queries per membership (three queries in all).
 */
export class UserPlansReader {
  constructor(private readonly deps: UserPlansReaderDeps) {}

  async list(resourceId: number, userId: number, request: PageRequest): Promise<UserPlanPageView> {
    const query = buildCompositeQuery(request, USER_PLAN_LIST);
    const memberships = await this.deps.memberships.listActiveWhere(resourceId, userId, query.conditions.membership);
    const [plans, pricings] = await Promise.all([
      this.deps.plans.findByIdsWhere(resourceId, distinct(memberships.map((row) => row.plan_id)), query.conditions.plan),
      this.deps.pricings.findByIdsWhere(resourceId, distinct(memberships.map((row) => row.pricing_id)), query.conditions.pricing),
    ]);
    const planById = new Map(plans.map((plan) => [plan._id, plan]));
    const pricingById = new Map(pricings.map((pricing) => [pricing._id, pricing]));
    const rows: Array<{ plan: PlanRecord; membership: MembershipView }> = [];
    for (const membership of memberships) {
      const plan = planById.get(membership.plan_id);
      const pricing = pricingById.get(membership.pricing_id);
      if (plan && pricing) rows.push({ plan, membership: { membership, pricing, plan } });
    }

    const records = (row: (typeof rows)[number]): Record<UserPlanEntity, object> => ({
      plan: row.plan,
      pricing: row.membership.pricing!,
      membership: row.membership.membership,
    });
    const valueOf = (row: (typeof rows)[number]) =>
      (records(row)[query.order.entity] as Record<string, Parameters<typeof compareValues>[0]>)[query.order.path];
    rows.sort(
      (a, b) =>
        query.direction * compareValues(valueOf(a), valueOf(b)) ||
        query.direction * (a.plan._id - b.plan._id) ||
        // Within one plan the newest membership comes first, so it is the one shown.
        b.membership.membership._id - a.membership.membership._id,
    );
    // One row per plan: the first in the requested order.
    const seen = new Set<number>();
    const distinctRows = rows.filter((row) => !seen.has(row.plan._id) && seen.add(row.plan._id));
    const start = (request.page - 1) * request.limit;
    return { items: distinctRows.slice(start, start + request.limit), paginator: toPaginator(request, distinctRows.length) };
  }
}
