import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { renewalModel, type RenewalRecord } from './renewal.schema.js';

/** Storage of renewal records. Background reads only; every write is guarded by the period it moves. */
export class RenewalRepository {
  private readonly model: Model<RenewalRecord>;

  constructor(db: Connection) {
    this.model = renewalModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Starts tracking a membership once (a second sale report of it changes nothing). */
  track(record: Omit<RenewalRecord, 'updated_at'>): Promise<boolean> {
    return insertIfAbsent(this.model.create({ ...record, updated_at: new Date() }));
  }

  find(membershipId: number): Promise<RenewalRecord | null> {
    return this.model.findById(membershipId).lean<RenewalRecord>().exec();
  }

  /** Records due at `now`, oldest first, at most `limit`. */
  due(now: Date, limit: number): Promise<RenewalRecord[]> {
    return this.model
      .find({ status: { $in: ['active', 'retrying'] }, next_attempt_at: { $lte: now } })
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .lean<RenewalRecord[]>()
      .exec();
  }

  /**
   * Moves the record from the state `from` (its period and attempt) to `to`. Guarded, so that a
   * replica acting on an old read changes nothing; two replicas acting on the same read write the
   * same values (FerretDB's guard is read-then-write).
   */
  async advance(from: Pick<RenewalRecord, '_id' | 'period_end' | 'attempt'>, to: Partial<RenewalRecord>): Promise<boolean> {
    const result = await this.model
      .updateOne({ _id: from._id, period_end: from.period_end, attempt: from.attempt }, { $set: { ...to, updated_at: new Date() } })
      .exec();
    return result.modifiedCount > 0;
  }
}
