import { insertWithNextId } from '@masthead/core/mongo';
import { buildListQuery, type PageRequest } from '@masthead/core/pagination';
import { MEMBERSHIP_HISTORY_LIST } from './history.list-spec.js';
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

  /** One page of the user's changes in the resource; throws 409 for an unknown filter or order. */
  async listPage(resourceId: number, userId: number, request: PageRequest): Promise<{ rows: MembershipChangeRecord[]; total: number }> {
    const query = buildListQuery(request, MEMBERSHIP_HISTORY_LIST, { resource_id: resourceId, user_id: userId });
    const [rows, total] = await Promise.all([
      this.model.find(query.filter).sort(query.sort).skip(query.skip).limit(query.limit).lean<MembershipChangeRecord[]>().exec(),
      this.model.countDocuments(query.filter).exec(),
    ]);
    return { rows, total };
  }

  append(change: NewMembershipChange): Promise<MembershipChangeRecord> {
    return insertWithNextId(this.db, this.model, { ...change, created_at: new Date() });
  }
}
