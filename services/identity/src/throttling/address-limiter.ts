import { Schema, type Connection, type Model } from 'mongoose';
import { addressLimited } from './throttling.errors.js';

/** Requests of one action from one client address in one fixed window. */
interface WindowRecord {
  /** `<action>:<address>:<window>`: the natural key, so counting is `_id` work. */
  _id: string;
  window: number;
  count: number;
}

const windowSchema = new Schema<WindowRecord>(
  {
    _id: { type: String, required: true },
    window: { type: Number, required: true },
    count: { type: Number, required: true },
  },
  { collection: 'address_windows', versionKey: false },
);
// Serves the sweep of finished windows (no TTL indexes on FerretDB, DESIGN.md).
windowSchema.index({ window: 1 });

export const WINDOW_MS = 60 * 60 * 1000;

/**
 * Per-address limits for actions that create accounts or send mail (registration, password
 * reset, email validation): at most `limit` requests per address per hour, then 429
 * `too_many_requests`. Counting uses `$inc`, approximate on FerretDB under bursts.
 */
export class AddressLimiter {
  private readonly model: Model<WindowRecord>;

  constructor(db: Connection) {
    this.model = db.models['AddressWindow'] ?? db.model<WindowRecord>('AddressWindow', windowSchema);
  }

  /** Counts this request; throws when the address is over `limit` in the current window. */
  async consume(action: string, address: string, limit: number): Promise<void> {
    if (!address) return;
    const window = Math.floor(Date.now() / WINDOW_MS);
    const record = await this.model
      .findOneAndUpdate({ _id: `${action}:${address}:${window}` }, { $inc: { count: 1 }, $set: { window } }, { upsert: true, new: true })
      .lean<WindowRecord>()
      .exec();
    if ((record?.count ?? 0) > limit) throw addressLimited();
  }

  /** Removes windows that have ended. */
  async sweep(): Promise<void> {
    await this.model.deleteMany({ window: { $lt: Math.floor(Date.now() / WINDOW_MS) } }).exec();
  }
}
