import { planNotFound, subscriptionNotFound } from '@masthead/core/errors';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { PlanRepository } from '../plans/plan.repository.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import { isDuplicateKey } from '@masthead/core/mongo';
import type { UpsertPricingCommand } from './pricing.command.js';
import { pricingNotFound } from './pricing.errors.js';
import type { PricingChanges, PricingRepository } from './pricing.repository.js';
import type { PricingRecord } from './pricing.schema.js';

interface PricingServiceDeps {
  plans: PlanRepository;
  pricings: PricingRepository;
  /** Every write reports the plan's resource: drops cached plan reads (ADR 0041). */
  changed(resourceId: number): Promise<void>;
}

export interface PricingView {
  pricing: PricingRecord;
  plan: PlanRecord;
}

/** A pricing with its plan, or null where the plan row is gone. */
export interface PricingListItem {
  pricing: PricingRecord;
  plan: PlanRecord | null;
}

export interface PricingPageView {
  items: PricingListItem[];
  paginator: Paginator;
}

export class PricingService {
  constructor(private readonly deps: PricingServiceDeps) {}

  /**
   * Public list (GET /subscriptions): active, non-private pricings of the resource's active,
   * non-private plans, the same visibility as the public plan list (ADR 0010).
   */
  async listPublic(resourceId: number, request: PageRequest): Promise<PricingPageView> {
    const planIds = await this.deps.plans.listPublicIds(resourceId);
    const page = await this.deps.pricings.listPublic(resourceId, planIds, request);
    const plans = await this.deps.plans.findByIds(resourceId, [...new Set(page.rows.map((pricing) => pricing.plan_id))]);
    const planById = new Map(plans.map((plan) => [plan._id, plan]));
    return {
      items: page.rows.map((pricing) => ({ pricing, plan: planById.get(pricing.plan_id) ?? null })),
      paginator: toPaginator(request, page.total),
    };
  }

  /**
   * Pricing detail (GET /subscriptions/{id}), the direct-link view like the plan detail: any
   * active pricing of an active plan of the resource, private ones included. Anything else is
   * 404 subscription_not_found.
   */
  async getVisible(resourceId: number, pricingId: number): Promise<PricingView> {
    const pricing = pricingId > 0 ? await this.deps.pricings.findInResource(resourceId, pricingId) : null;
    if (!pricing?.active) throw subscriptionNotFound();
    const plan = await this.deps.plans.findActive(resourceId, pricing.plan_id);
    if (!plan) throw subscriptionNotFound();
    return { pricing, plan };
  }

  /** Creates or updates the plan's pricing of that title; 404 plan_not_found without the plan. */
  async upsert(command: UpsertPricingCommand): Promise<PricingView> {
    const plan = await this.deps.plans.findAnyById(command.planId);
    if (!plan) throw planNotFound();
    const fields = {
      price: command.price,
      currency: command.currency,
      period: command.period,
      active: command.active,
      private: command.private,
      external_source_ids: command.externalSourceIds,
    };
    // On update, absent optional fields keep what is stored; an empty country clears it.
    const changes: PricingChanges = { ...fields };
    if (command.usersLimit !== undefined) changes.users_limit = command.usersLimit;
    if (command.countryVat !== undefined) changes.country_vat = command.countryVat || null;
    if (command.type !== undefined) changes.type = command.type;

    try {
      const existing = await this.deps.pricings.findByTitle(plan._id, command.title);
      if (existing) return { pricing: await this.update(existing, changes), plan };
      try {
        const pricing = await this.deps.pricings.insert({
          ...fields,
          plan_id: plan._id,
          resource_id: plan.resource_id,
          title: command.title,
          users_limit: command.usersLimit ?? null,
          country_vat: command.countryVat || null,
          type: command.type ?? 'standard',
        });
        return { pricing, plan };
      } catch (error) {
        // A parallel upsert of the same title won the insert: apply ours as an update.
        const winner = isDuplicateKey(error) ? await this.deps.pricings.findByTitle(plan._id, command.title) : null;
        if (!winner) throw error;
        return { pricing: await this.update(winner, changes), plan };
      }
    } finally {
      // Also after a failure: the write may have happened before it.
      await this.deps.changed(plan.resource_id);
    }
  }

  private async update(existing: PricingRecord, changes: PricingChanges): Promise<PricingRecord> {
    const updated = await this.deps.pricings.update(existing.resource_id, existing._id, changes);
    if (!updated) throw pricingNotFound();
    return updated;
  }
}
