import { inSequence, isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import { addressLimited } from './throttling.errors.js';

/**
 * One document of the `address_windows` collection, keyed by `<action>:<address>:<window>`:
 * - the window's summary, `_id` = the key: `claimed` is the highest slot known to be taken, a
 *   hint only (its `$max` may be lost on FerretDB);
 * - one claimed slot, `_id` = `<key>#<n>` for n in 1..limit: the unique `_id` is what counts.
 */
interface WindowRecord {
  _id: string;
  window: number;
  claimed?: number;
}

const windowSchema = new Schema<WindowRecord>(
  {
    _id: { type: String, required: true },
    window: { type: Number, required: true },
    claimed: { type: Number },
  },
  { collection: 'address_windows', versionKey: false },
);
// Serves the sweep of finished windows (no TTL indexes on FerretDB, DESIGN.md).
windowSchema.index({ window: 1 });

export const WINDOW_MS = 60 * 60 * 1000;

/**
 * Per-address limits for actions that create accounts or send mail (registration, password
 * reset, email validation): at most `limit` requests per address per hour, then 429
 * `too_many_requests`.
 *
 * Exact under concurrency on MongoDB and FerretDB alike (ADR 0081): each accepted request inserts
 * one slot document, and the unique `_id` lets only one request take a slot; a duplicate key is
 * another request's claim on that slot, so the next one is tried. FerretDB applies `$inc`
 * read-then-write (ADR 0002), which is why a counter alone let bursts through and its first
 * upsert raced into a duplicate key (a 500, issue 7). Within a process the claims of one address
 * run in sequence, so a burst costs one insert per accepted request, not a round of collisions.
 */
export class AddressLimiter {
  private readonly model: Model<WindowRecord>;

  constructor(private readonly db: Connection) {
    this.model = db.models['AddressWindow'] ?? db.model<WindowRecord>('AddressWindow', windowSchema);
  }

  /** Counts this request; throws 429 `too_many_requests` when the address has used its `limit`. */
  async consume(action: string, address: string, limit: number): Promise<void> {
    if (!address) return;
    const window = Math.floor(Date.now() / WINDOW_MS);
    const key = `${action}:${address}:${window}`;
    await inSequence(this.db, `address_windows:${key}`, () => this.claimSlot(key, window, limit));
  }

  /** Removes windows that have ended. */
  async sweep(): Promise<void> {
    await this.model.deleteMany({ window: { $lt: Math.floor(Date.now() / WINDOW_MS) } }).exec();
  }

  private async claimSlot(key: string, window: number, limit: number): Promise<void> {
    const summary = await this.model.findById(key).lean<WindowRecord>().exec();
    for (let slot = (summary?.claimed ?? 0) + 1; slot <= limit; slot++) {
      try {
        await this.model.create({ _id: `${key}#${slot}`, window });
      } catch (error) {
        if (isDuplicateKey(error)) continue;
        throw error;
      }
      await this.raiseHint(key, window, slot);
      return;
    }
    throw addressLimited();
  }

  /**
   * Moves the hint past the slot just taken. Two first upserts of a window can race into a
   * duplicate key: the summary exists then, and a lower hint only costs the next request a retry.
   */
  private async raiseHint(key: string, window: number, slot: number): Promise<void> {
    try {
      await this.model.updateOne({ _id: key }, { $max: { claimed: slot }, $set: { window } }, { upsert: true }).exec();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
}
