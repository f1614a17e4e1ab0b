import type { Connection } from 'mongoose';
import { memberCodeModels, type MemberCodeModels, type MemberCodeRecord } from './member-code.schema.js';

const isDuplicateKey = (error: unknown) => (error as { code?: number })?.code === 11000;

export class MemberCodeRepository {
  private readonly models: MemberCodeModels;

  constructor(db: Connection) {
    this.models = memberCodeModels(db);
  }

  async ready(): Promise<void> {
    await Promise.all(Object.values(this.models).map((model) => model.createIndexes()));
  }

  /** Stores a code and drops the member's earlier codes of the same purpose: one live code each. */
  async replace(record: MemberCodeRecord): Promise<void> {
    await this.models.codes.deleteMany({ user_id: record.user_id, purpose: record.purpose }).exec();
    await this.models.codes.create(record);
  }

  find(selector: string): Promise<MemberCodeRecord | null> {
    return this.models.codes.findById(selector).lean<MemberCodeRecord>().exec();
  }

  /** Claims the single use of a code; false when it was used before (or by a parallel request). */
  async claim(selector: string): Promise<boolean> {
    try {
      await this.models.uses.create({ _id: selector, used_at: new Date() });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async delete(selector: string): Promise<void> {
    await this.models.codes.deleteOne({ _id: selector }).exec();
  }
}
