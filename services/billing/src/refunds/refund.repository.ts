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

  /** The oldest owed refunds whose backoff is over, for a pass (one that keeps failing does not block the rest). */
  dueBy(now: Date, limit: number): Promise<DueRefundRecord[]> {
    return this.model
      .find({ $or: [{ next_attempt_at: null }, { next_attempt_at: { $lte: now } }] })
      .sort({ created_at: 1 })
      .limit(limit)
      .lean<DueRefundRecord[]>()
      .exec();
  }

  /** Every owed refund, oldest first, for operators. */
  list(limit: number): Promise<DueRefundRecord[]> {
    return this.model.find({}).sort({ created_at: 1 }).limit(limit).lean<DueRefundRecord[]>().exec();
  }

  find(key: string): Promise<DueRefundRecord | null> {
    return this.model.findOne({ _id: key }).lean<DueRefundRecord>().exec();
  }

  /** Records a failed attempt and when to try again. */
  async failed(key: string, attempts: number, nextAttemptAt: Date, error: string): Promise<void> {
    await this.model.updateOne({ _id: key }, { $set: { attempts, next_attempt_at: nextAttemptAt, last_error: error } }).exec();
  }

  async done(key: string): Promise<void> {
    await this.model.deleteOne({ _id: key }).exec();
  }
}
