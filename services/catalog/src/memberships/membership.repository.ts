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

  findActiveOfPricing(resourceId: number, userId: number, pricingId: number): Promise<MembershipRecord | null> {
    return this.model
      .findOne({ resource_id: resourceId, user_id: userId, pricing_id: pricingId, active: true })
      .lean<MembershipRecord>()
      .exec();
  }

  insert(membership: NewMembership): Promise<MembershipRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...membership, created_at: now, updated_at: now });
  }
}
