import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { membershipModel, type MembershipRecord } from './membership.schema.js';

export type NewMembership = Omit<MembershipRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of memberships. Every read names the resource; results are plain objects. */
export class MembershipRepository {
  private readonly model: Model<MembershipRecord>;

  constructor(private readonly db: Connection) {
    this.model = membershipModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The user's active memberships in the resource, newest first. */
  listActive(resourceId: number, userId: number): Promise<MembershipRecord[]> {
    return this.model
      .find({ resource_id: resourceId, user_id: userId, active: true })
      .sort({ created_at: -1, _id: -1 })
      .lean<MembershipRecord[]>()
      .exec();
  }

  /** Every membership of the user in the resource, active or not (team plan eligibility). */
  listAll(resourceId: number, userId: number): Promise<MembershipRecord[]> {
    return this.model.find({ resource_id: resourceId, user_id: userId }).lean<MembershipRecord[]>().exec();
  }

  /** The user's active memberships that also match `conditions` (a built filter), unordered. */
  listActiveWhere(resourceId: number, userId: number, conditions: Record<string, unknown>): Promise<MembershipRecord[]> {
    return this.model
      .find({ $and: [conditions, { resource_id: resourceId, user_id: userId, active: true }] })
      .lean<MembershipRecord[]>()
      .exec();
  }

  /** The user's active memberships in several resources, newest first. */
  listActiveAcross(resourceIds: number[], userId: number): Promise<MembershipRecord[]> {
    if (resourceIds.length === 0) return Promise.resolve([]);
    return this.model
      .find({ resource_id: { $in: resourceIds }, user_id: userId, active: true })
      .sort({ created_at: -1, _id: -1 })
      .lean<MembershipRecord[]>()
      .exec();
  }

  /** The user's active membership of that ID in the resource; null for anyone else's. */
  findActiveOwned(resourceId: number, userId: number, id: number): Promise<MembershipRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId, user_id: userId, active: true }).lean<MembershipRecord>().exec();
  }

  /**
   * Sets autorenew when the membership is active and holds the other value; null otherwise.
   * On FerretDB the guard is read-then-write (DESIGN.md), so two identical requests racing can
   * both apply: the flag ends the same, the history may show the change twice.
   */
  setAutorenew(resourceId: number, userId: number, id: number, autorenew: boolean): Promise<MembershipRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, resource_id: resourceId, user_id: userId, active: true, autorenew: !autorenew },
        { $set: { autorenew, updated_at: new Date() } },
        { new: true },
      )
      .lean<MembershipRecord>()
      .exec();
  }

  /**
   * Marks the membership inactive; null when it was not active. On FerretDB two racing calls can
   * both see it active: the caller elects one of them with a detachment marker.
   */
  deactivate(resourceId: number, userId: number, id: number): Promise<MembershipRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, resource_id: resourceId, user_id: userId, active: true },
        { $set: { active: false, updated_at: new Date() } },
        { new: true },
      )
      .lean<MembershipRecord>()
      .exec();
  }

  /** The user's membership of that ID in the resource, active or not. */
  findOwned(resourceId: number, userId: number, id: number): Promise<MembershipRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId, user_id: userId }).lean<MembershipRecord>().exec();
  }

  /**
   * Moves an active membership's end date from `from` to `to`; null when it no longer ends at
   * `from`. Two renewals of the same period write the same value (FerretDB's guard is
   * read-then-write), and a marker elects who records it.
   */
  moveEndDate(id: number, from: Date, to: Date): Promise<MembershipRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, active: true, end_date: from }, { $set: { end_date: to, updated_at: new Date() } }, { new: true })
      .lean<MembershipRecord>()
      .exec();
  }

  /** Sets an active membership's end date and autorenew as given. */
  setTerms(id: number, terms: { end_date?: Date | null; autorenew?: boolean }): Promise<MembershipRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, active: true }, { $set: { ...terms, updated_at: new Date() } }, { new: true })
      .lean<MembershipRecord>()
      .exec();
  }

  findActiveOfPricing(resourceId: number, userId: number, pricingId: number): Promise<MembershipRecord | null> {
    return this.model
      .findOne({ resource_id: resourceId, user_id: userId, pricing_id: pricingId, active: true })
      .lean<MembershipRecord>()
      .exec();
  }

  async hasActiveInResource(resourceId: number, userId: number): Promise<boolean> {
    return (await this.model.exists({ resource_id: resourceId, user_id: userId, active: true }).exec()) !== null;
  }

  insert(membership: NewMembership): Promise<MembershipRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...membership, created_at: now, updated_at: now });
  }
}
