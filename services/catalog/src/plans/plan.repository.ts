import { buildListQuery, type PageRequest } from '@masthead/core/pagination';
import { insertWithNextId, oneOrIn } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { PUBLIC_PLAN_LIST, TEAM_PLAN_LIST } from './plan.list-spec.js';
import { planModel, type PlanRecord } from './plan.schema.js';

export type NewPlan = Omit<PlanRecord, '_id' | 'created_at' | 'updated_at'>;
export type PlanChanges = Pick<PlanRecord, 'title' | 'active' | 'private' | 'full_access'> &
  Partial<Pick<PlanRecord, 'parent_plan_id' | 'can_own_teams'>>;

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

  /** Every active, non-private plan of the resource (the embedded catalog), unordered. */
  listAllPublic(resourceId: number): Promise<PlanRecord[]> {
    return this.model.find({ resource_id: resourceId, active: true, private: false }).lean<PlanRecord[]>().exec();
  }

  /** IDs of the resource's active, non-private plans (the public pricing list's scope). */
  async listPublicIds(resourceId: number): Promise<number[]> {
    const rows = await this.model
      .find({ resource_id: resourceId, active: true, private: false }, { _id: 1 })
      .lean<Array<Pick<PlanRecord, '_id'>>>()
      .exec();
    return rows.map((row) => row._id);
  }

  /** The active team plans (can_own_teams) among the given plans of the resource. */
  findActiveTeamPlans(resourceId: number, ids: number[]): Promise<PlanRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ _id: { $in: ids }, resource_id: resourceId, active: true, can_own_teams: true })
      .lean<PlanRecord[]>()
      .exec();
  }

  /**
   * One page of the active children of the given team plans that cannot own teams themselves;
   * throws 409 for an unknown filter. The order is fixed (the list has no sorting option).
   */
  async listTeamChildren(resourceId: number, parentIds: number[], request: PageRequest): Promise<PlanPage> {
    const query = buildListQuery({ ...request, orderBy: '', sort: 'DESC' }, TEAM_PLAN_LIST, {
      resource_id: resourceId,
      parent_plan_id: { $in: parentIds },
      active: true,
      // $ne, not false: plans stored before the flag existed have no such field.
      can_own_teams: { $ne: true },
    });
    if (parentIds.length === 0) return { rows: [], total: 0 };
    const [rows, total] = await Promise.all([
      this.model.find(query.filter).sort(query.sort).skip(query.skip).limit(query.limit).lean<PlanRecord[]>().exec(),
      this.model.countDocuments(query.filter).exec(),
    ]);
    return { rows, total };
  }

  /** The given plans of the resource that also match `conditions` (a built filter). */
  findByIdsWhere(resourceId: number, ids: number[], conditions: Record<string, unknown>): Promise<PlanRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return (
      this.model
        // $and keeps a caller's own `_id` condition (filter[Plans.id]) next to the scope.
        .find({ $and: [conditions, { _id: { $in: ids }, resource_id: resourceId }] })
        .lean<PlanRecord[]>()
        .exec()
    );
  }

  /** Plans of several resources at once (the grouped member reads span a partner's resources). */
  findByIdsAcross(resourceIds: number[], ids: number[]): Promise<PlanRecord[]> {
    if (ids.length === 0 || resourceIds.length === 0) return Promise.resolve([]);
    return (
      this.model
        // One resource (ListMemberships) or one row: equalities, which use an index on FerretDB too.
        .find({ _id: oneOrIn(ids), resource_id: oneOrIn(resourceIds) })
        .lean<PlanRecord[]>()
        .exec()
    );
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
