import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { pricingModel, type PricingRecord } from './pricing.schema.js';

export type NewPricing = Omit<PricingRecord, '_id' | 'created_at' | 'updated_at'>;
export type PricingChanges = Partial<Omit<NewPricing, 'plan_id' | 'resource_id' | 'title'>>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface PlanPricingsFilter {
  /** Detail views show private pricings (direct link); lists do not. */
  includePrivate: boolean;
}

/** Storage of pricings. Every read names the resource; results are plain objects. */
export class PricingRepository {
  private readonly model: Model<PricingRecord>;

  constructor(private readonly db: Connection) {
    this.model = pricingModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Active pricings of several plans in one query, by ID ascending. */
  listActiveForPlans(resourceId: number, planIds: number[], { includePrivate }: PlanPricingsFilter): Promise<PricingRecord[]> {
    if (planIds.length === 0) return Promise.resolve([]);
    const filter: Record<string, unknown> = { resource_id: resourceId, plan_id: { $in: planIds }, active: true };
    if (!includePrivate) filter['private'] = false;
    return this.model.find(filter).sort({ _id: 1 }).lean<PricingRecord[]>().exec();
  }

  findInResource(resourceId: number, id: number): Promise<PricingRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<PricingRecord>().exec();
  }

  /**
   * Pricings of the resource whose external_source_ids contain the text in any case, by ID
   * ascending: the prefilter of the external lookup, which then matches whole tokens. Bounded by
   * the resource's catalog (FerretDB pushes no regular expression down; pricings per resource are
   * tens to hundreds).
   */
  findByExternalSourceText(resourceId: number, text: string): Promise<PricingRecord[]> {
    return this.model
      .find({ resource_id: resourceId, external_source_ids: { $regex: escapeRegExp(text), $options: 'i' } })
      .sort({ _id: 1 })
      .lean<PricingRecord[]>()
      .exec();
  }

  findByIds(resourceId: number, ids: number[]): Promise<PricingRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ _id: { $in: ids }, resource_id: resourceId })
      .lean<PricingRecord[]>()
      .exec();
  }

  findByTitle(planId: number, title: string): Promise<PricingRecord | null> {
    return this.model.findOne({ plan_id: planId, title }).lean<PricingRecord>().exec();
  }

  /** Throws a duplicate-key error when the plan already has a pricing with this title. */
  insert(pricing: NewPricing): Promise<PricingRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...pricing, created_at: now, updated_at: now });
  }

  update(resourceId: number, id: number, changes: PricingChanges): Promise<PricingRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, resource_id: resourceId }, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<PricingRecord>()
      .exec();
  }
}
