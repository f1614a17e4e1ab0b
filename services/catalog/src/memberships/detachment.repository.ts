import type { Connection, Model } from 'mongoose';
import { insertIfAbsent } from '@masthead/core/mongo';
import { membershipDetachmentModel, type MembershipDetachmentRecord } from './detachment.schema.js';

/** Storage of membership_detachments; see detachment.schema.ts for why they exist. */
export class MembershipDetachmentRepository {
  private readonly model: Model<MembershipDetachmentRecord>;

  constructor(db: Connection) {
    this.model = membershipDetachmentModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** True for the one caller whose insert of the membership's record succeeded. */
  async record(membershipId: number): Promise<boolean> {
    return insertIfAbsent(this.model.create({ _id: membershipId, created_at: new Date() }));
  }
}
