import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { dueRefundModel, type DueRefundRecord } from './refund.schema.js';

/** Storage of due refunds (refund.schema.ts); plain objects. */
export class DueRefundRepository {
  private readonly model: Model<DueRefundRecord>;

  constructor(db: Connection) {
    this.model = dueRefundModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Records the refund as owed; a second record of the same key is the same one (unique insert). */
  async record(due: DueRefundRecord): Promise<void> {
    await insertIfAbsent(this.model.create(due));
  }

  of(transactionId: number): Promise<DueRefundRecord[]> {
    return this.model.find({ transaction_id: transactionId }).sort({ _id: 1 }).lean<DueRefundRecord[]>().exec();
  }

  /** The oldest owed refunds, for a pass. */
  oldest(limit: number): Promise<DueRefundRecord[]> {
    return this.model.find({}).sort({ created_at: 1 }).limit(limit).lean<DueRefundRecord[]>().exec();
  }

  async done(key: string): Promise<void> {
    await this.model.deleteOne({ _id: key }).exec();
  }
}
