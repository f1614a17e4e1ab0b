import { insertWithNextId } from '@masthead/core/mongo';
import { buildListQuery, type PageRequest } from '@masthead/core/pagination';
import type { Connection, Model } from 'mongoose';
import { PUBLIC_PRICING_LIST } from './pricing.list-spec.js';
import { pricingModel, type PricingRecord } from './pricing.schema.js';

export type NewPricing = Omit<PricingRecord, '_id' | 'created_at' | 'updated_at'>;
export type PricingChanges = Partial<Omit<NewPricing, 'plan_id' | 'resource_id' | 'title'>>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface PlanPricingsFilter {
  /** Detail views show private pricings (direct link); lists do not. */
  includePrivate: boolean;
}

export interface PricingPage {
  rows: PricingRecord[];
  total: number;
}

/** Storage of pricings. Every read names the resource; results are plain objects. */
export class PricingRepository {
  private readonly model: Model<PricingRecord>;

  constructor(private readonly db: Connection) {
    this.model = pricingModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
    // Rows stored before Pricings had a type are standard (docs/adr/0140); idempotent, so every
    // replica may run it at start.
    await this.model.updateMany({ type: { $exists: false } }, { $set: { type: 'standard' } }).exec();
  }

  /** Active pricings of several plans in one query, by ID ascending. */
  listActiveForPlans(resourceId: number, planIds: number[], { includePrivate }: PlanPricingsFilter): Promise<PricingRecord[]> {
    if (planIds.length === 0) return Promise.resolve([]);
    const filter: Record<string, unknown> = { resource_id: resourceId, plan_id: { $in: planIds }, active: true };
    if (!includePrivate) filter['private'] = false;
    return this.model.find(filter).sort({ _id: 1 }).lean<PricingRecord[]>().exec();
  }

  /**
   * One page of the resource's active, non-private pricings of the given (visible) plans;
   * throws 409 for an unknown filter or order.
   */
  async listPublic(resourceId: number, planIds: number[], request: PageRequest): Promise<PricingPage> {
    const query = buildListQuery(request, PUBLIC_PRICING_LIST, {
      resource_id: resourceId,
      active: true,
      private: false,
      // In $and so that a caller's own plan_id filter still applies next to the scope.
      $and: [{ plan_id: { $in: planIds } }],
    });
    if (planIds.length === 0) return { rows: [], total: 0 };
    const [rows, total] = await Promise.all([
      this.model.find(query.filter).sort(query.sort).skip(query.skip).limit(query.limit).lean<PricingRecord[]>().exec(),
      this.model.countDocuments(query.filter).exec(),
    ]);
    return { rows, total };
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

  /** The given pricings of the resource that also match `conditions` (a built filter). */
  findByIdsWhere(resourceId: number, ids: number[], conditions: Record<string, unknown>): Promise<PricingRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ $and: [conditions, { _id: { $in: ids }, resource_id: resourceId }] })
      .lean<PricingRecord[]>()
      .exec();
  }

  /** Pricings of several resources at once (the grouped member reads span a partner's resources). */
  findByIdsAcross(resourceIds: number[], ids: number[]): Promise<PricingRecord[]> {
    if (ids.length === 0 || resourceIds.length === 0) return Promise.resolve([]);
    return this.model
      .find({ _id: { $in: ids }, resource_id: { $in: resourceIds } })
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
