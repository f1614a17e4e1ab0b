import { planNotFound } from '@masthead/core/errors';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { PricingRepository } from '../pricings/pricing.repository.js';
import type { PricingRecord } from '../pricings/pricing.schema.js';
import { isDuplicateKey } from '../support/duplicate-key.js';
import type { UpsertPlanCommand } from './plan.command.js';
import { invalidParentPlan } from './plan.errors.js';
import type { PlanChanges, PlanRepository } from './plan.repository.js';
import type { PartitionedReadCache } from '@masthead/core/cache';
import type { PlanRecord } from './plan.schema.js';

interface PlanServiceDeps {
  plans: PlanRepository;
  pricings: PricingRepository;
  /** Public reads, kept per resource (ADR 0041). */
  cache: PartitionedReadCache;
  /** Every write of a plan or pricing reports its resource here: drops cached reads everywhere. */
  changed(resourceId: number): Promise<void>;
}

/** A plan with the pricings a caller may see (the `subscriptions` of the API). */
export interface PlanView {
  plan: PlanRecord;
  pricings: PricingRecord[];
}

export interface PlanPageView {
  items: PlanView[];
  paginator: Paginator;
}

export class PlanService {
  constructor(private readonly deps: PlanServiceDeps) {}

  /** Public list: active, non-private plans, each with its active, non-private pricings. */
  listPublic(resourceId: number, request: PageRequest): Promise<PlanPageView> {
    return this.deps.cache.read(resourceId, `list:${JSON.stringify(request)}`, () => this.loadPublic(resourceId, request));
  }

  private async loadPublic(resourceId: number, request: PageRequest): Promise<PlanPageView> {
    const page = await this.deps.plans.listPublic(resourceId, request);
    // One query for the whole page, never one per plan.
    const pricings = await this.deps.pricings.listActiveForPlans(
      resourceId,
      page.rows.map((plan) => plan._id),
      { includePrivate: false },
    );
    const byPlan = groupByPlan(pricings);
    return {
      items: page.rows.map((plan) => ({ plan, pricings: byPlan.get(plan._id) ?? [] })),
      paginator: toPaginator(request, page.total),
    };
  }

  /**
   * The embedded catalog (GET /integrations/plans): the public list's visibility (active,
   * non-private plans with their active, non-private pricings), every plan at once, ordered by
   * title ascending (case-insensitive, then ID). Plans with no visible pricing are left out: the
   * catalog is grouped by plan from its pricings, and a plan with none offers nothing to buy.
   */
  async listEmbedded(resourceId: number): Promise<PlanView[]> {
    const plans = await this.deps.plans.listAllPublic(resourceId);
    const pricings = await this.deps.pricings.listActiveForPlans(
      resourceId,
      plans.map((plan) => plan._id),
      { includePrivate: false },
    );
    const byPlan = groupByPlan(pricings);
    return plans
      .filter((plan) => byPlan.has(plan._id))
      .sort((a, b) => TITLE_ORDER.compare(a.title, b.title) || a._id - b._id)
      .map((plan) => ({ plan, pricings: byPlan.get(plan._id) ?? [] }));
  }

  /**
   * Plan detail. Visibility differs from the list on purpose (document 1 F): the detail is the
   * direct-link view, so a private plan and its private pricings are shown to whoever has the ID;
   * an inactive plan, or one of another resource, is 404 plan_not_found.
   */
  getActive(resourceId: number, planId: number): Promise<PlanView> {
    return this.deps.cache.read(resourceId, `plan:${planId}`, async () => {
      const plan = await this.deps.plans.findActive(resourceId, planId);
      if (!plan) throw planNotFound();
      return this.withAllActivePricings(plan);
    });
  }

  /**
   * Creates or updates the resource's plan of that slug. A parent must be another plan of the
   * same resource that has no parent itself (one level: team plan → seat plans); 400
   * invalid_parent_plan_id otherwise.
   */
  async upsert(command: UpsertPlanCommand): Promise<PlanView> {
    const changes: PlanChanges = {
      title: command.title,
      active: command.active,
      private: command.private,
      full_access: command.fullAccess,
    };
    // On update, absent hierarchy fields keep what is stored; 0 clears the parent.
    if (command.parentPlanId !== undefined) changes.parent_plan_id = command.parentPlanId || null;
    if (command.canOwnTeams !== undefined) changes.can_own_teams = command.canOwnTeams;
    try {
      const existing = await this.deps.plans.findBySlug(command.resourceId, command.slug);
      if (changes.parent_plan_id) await this.checkParent(command.resourceId, changes.parent_plan_id, existing);
      if (existing) return await this.withAllActivePricings(await this.update(existing, changes));
      try {
        const plan = await this.deps.plans.insert({
          parent_plan_id: null,
          can_own_teams: false,
          ...changes,
          resource_id: command.resourceId,
          slug: command.slug,
        });
        return { plan, pricings: [] };
      } catch (error) {
        // A parallel upsert of the same slug won the insert: apply ours as an update.
        const winner = isDuplicateKey(error) ? await this.deps.plans.findBySlug(command.resourceId, command.slug) : null;
        if (!winner) throw error;
        return await this.withAllActivePricings(await this.update(winner, changes));
      }
    } finally {
      // Also after a failure: the write may have happened before it.
      await this.deps.changed(command.resourceId);
    }
  }

  private async checkParent(resourceId: number, parentId: number, child: PlanRecord | null): Promise<void> {
    if (child && child._id === parentId) throw invalidParentPlan('a plan cannot be its own parent');
    const [parent] = await this.deps.plans.findByIds(resourceId, [parentId]);
    if (!parent) throw invalidParentPlan('no plan with that ID in the resource');
    if (parent.parent_plan_id) throw invalidParentPlan('the parent is a child plan itself (one level only)');
  }

  private async update(existing: PlanRecord, changes: PlanChanges): Promise<PlanRecord> {
    const updated = await this.deps.plans.update(existing.resource_id, existing._id, changes);
    if (!updated) throw planNotFound();
    return updated;
  }

  private async withAllActivePricings(plan: PlanRecord): Promise<PlanView> {
    const pricings = await this.deps.pricings.listActiveForPlans(plan.resource_id, [plan._id], { includePrivate: true });
    return { plan, pricings };
  }
}

/** Titles ascending as a reader expects them: case and accents do not split the order. */
const TITLE_ORDER = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function groupByPlan(pricings: PricingRecord[]): Map<number, PricingRecord[]> {
  const groups = new Map<number, PricingRecord[]>();
  for (const pricing of pricings) {
    const group = groups.get(pricing.plan_id);
    if (group) group.push(pricing);
    else groups.set(pricing.plan_id, [pricing]);
  }
  return groups;
}
