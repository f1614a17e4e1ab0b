import { buildListQuery, type PageRequest } from '@masthead/core/pagination';
import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { PUBLIC_PLAN_LIST } from './plan.list-spec.js';
import { planModel, type PlanRecord } from './plan.schema.js';

export type NewPlan = Omit<PlanRecord, '_id' | 'created_at' | 'updated_at'>;
export type PlanChanges = Pick<PlanRecord, 'title' | 'active' | 'private' | 'full_access'>;

export interface PlanPage {
  rows: PlanRecord[];
  total: number;
}

/** Storage of plans. Every read names the resource; results are plain objects. */
export class PlanRepository {
  private readonly model: Model<PlanRecord>;

  constructor(private readonly db: Connection) {
    this.model = planModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** One page of the resource's active, non-private plans; throws 409 for an unknown filter. */
  async listPublic(resourceId: number, request: PageRequest): Promise<PlanPage> {
    const query = buildListQuery(request, PUBLIC_PLAN_LIST, { resource_id: resourceId, active: true, private: false });
    const [rows, total] = await Promise.all([
      this.model.find(query.filter).sort(query.sort).skip(query.skip).limit(query.limit).lean<PlanRecord[]>().exec(),
      this.model.countDocuments(query.filter).exec(),
    ]);
    return { rows, total };
  }

  findActive(resourceId: number, id: number): Promise<PlanRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId, active: true }).lean<PlanRecord>().exec();
  }

  findBySlug(resourceId: number, slug: string): Promise<PlanRecord | null> {
    return this.model.findOne({ resource_id: resourceId, slug }).lean<PlanRecord>().exec();
  }

  findByIds(resourceId: number, ids: number[]): Promise<PlanRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ _id: { $in: ids }, resource_id: resourceId })
      .lean<PlanRecord[]>()
      .exec();
  }

  /** Operator path only: UpsertPricing names just the plan, whose row carries the resource. */
  findAnyById(id: number): Promise<PlanRecord | null> {
    return this.model.findById(id).lean<PlanRecord>().exec();
  }

  /** Throws a duplicate-key error when the resource already has a plan with this slug. */
  insert(plan: NewPlan): Promise<PlanRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...plan, created_at: now, updated_at: now });
  }

  update(resourceId: number, id: number, changes: PlanChanges): Promise<PlanRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, resource_id: resourceId }, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<PlanRecord>()
      .exec();
  }
}
