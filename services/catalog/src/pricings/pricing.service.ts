import type { PlanRepository } from '../plans/plan.repository.js';
import { planNotFound } from '../plans/plan.errors.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import { isDuplicateKey } from '../support/duplicate-key.js';
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

export class PricingService {
  constructor(private readonly deps: PricingServiceDeps) {}

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
