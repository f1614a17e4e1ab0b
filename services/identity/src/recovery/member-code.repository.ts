import type { Connection, Model } from 'mongoose';
import { memberCodeModel, type MemberCodeRecord } from './member-code.schema.js';

export class MemberCodeRepository {
  private readonly model: Model<MemberCodeRecord>;

  constructor(db: Connection) {
    this.model = memberCodeModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Stores a code and drops the member's earlier codes of the same purpose: one live code each. */
  async replace(record: MemberCodeRecord): Promise<void> {
    await this.model.deleteMany({ user_id: record.user_id, purpose: record.purpose }).exec();
    await this.model.create(record);
  }

  find(selector: string): Promise<MemberCodeRecord | null> {
    return this.model.findById(selector).lean<MemberCodeRecord>().exec();
  }

  async delete(selector: string): Promise<void> {
    await this.model.deleteOne({ _id: selector }).exec();
  }
}
