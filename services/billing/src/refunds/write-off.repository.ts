import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { refundWriteOffModel, type RefundWriteOffRecord } from './write-off.schema.js';

/** Storage of written-off refunds (write-off.schema.ts); plain objects. Looked up by `_id` only. */
export class RefundWriteOffRepository {
  private readonly model: Model<RefundWriteOffRecord>;

  constructor(db: Connection) {
    this.model = refundWriteOffModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Records the write-off unless one of the key is recorded; answers the one that stands. */
  async record(writeOff: RefundWriteOffRecord): Promise<RefundWriteOffRecord> {
    if (await insertIfAbsent(this.model.create(writeOff))) return writeOff;
    return (await this.find(writeOff._id)) ?? writeOff;
  }

  find(key: string): Promise<RefundWriteOffRecord | null> {
    return this.model.findOne({ _id: key }).lean<RefundWriteOffRecord>().exec();
  }
}
