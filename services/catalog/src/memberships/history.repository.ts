import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { membershipHistoryModel, type MembershipChangeRecord } from './history.schema.js';

export type NewMembershipChange = Omit<MembershipChangeRecord, '_id' | 'created_at'>;

/** Storage of membership_history, append-only. */
export class MembershipHistoryRepository {
  private readonly model: Model<MembershipChangeRecord>;

  constructor(private readonly db: Connection) {
    this.model = membershipHistoryModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The user's membership changes in the resource, newest first. */
  listForUser(resourceId: number, userId: number): Promise<MembershipChangeRecord[]> {
    return this.model
      .find({ resource_id: resourceId, user_id: userId })
      .sort({ created_at: -1, _id: -1 })
      .lean<MembershipChangeRecord[]>()
      .exec();
  }

  append(change: NewMembershipChange): Promise<MembershipChangeRecord> {
    return insertWithNextId(this.db, this.model, { ...change, created_at: new Date() });
  }
}
