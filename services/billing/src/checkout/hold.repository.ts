import { insertIfAbsent } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A hold on one item for one checkout (`purchase_holds`, `_id` `<resource>:<user>:<item type>:
 * <item>`): while it exists no other checkout of the member buys the same item, so two requests
 * with different Idempotency-Keys cannot both charge for one membership. Taken by a unique
 * insert (ADR 0002), released when the checkout settles.
 */
interface HoldRecord {
  _id: string;
  claim_key: string;
  created_at: Date;
}

const holdSchema = new Schema<HoldRecord>(
  { _id: { type: String, required: true }, claim_key: { type: String, required: true }, created_at: { type: Date, required: true } },
  { collection: 'purchase_holds', versionKey: false },
);

/** Whether the checkout holding under `claimKey` is over (settled, or gone without a transaction). */
export type HoldIsStale = (claimKey: string, heldSince: Date) => Promise<boolean>;

export class HoldRepository {
  private readonly model: Model<HoldRecord>;

  constructor(db: Connection) {
    this.model = db.models['PurchaseHold'] ?? db.model<HoldRecord>('PurchaseHold', holdSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** True when `claimKey` holds the item now (newly, again, or after replacing a stale hold). */
  async hold(id: string, claimKey: string, isStale: HoldIsStale): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await insertIfAbsent(this.model.create({ _id: id, claim_key: claimKey, created_at: new Date() }))) return true;
      const held = await this.model.findById(id).lean<HoldRecord>().exec();
      if (!held) continue;
      if (held.claim_key === claimKey) return true;
      if (!(await isStale(held.claim_key, held.created_at))) return false;
      // Only the stale holder's document goes: a fresh hold taken meanwhile stays.
      await this.model.deleteOne({ _id: id, claim_key: held.claim_key }).exec();
    }
    return false;
  }

  async release(id: string, claimKey: string): Promise<void> {
    await this.model.deleteOne({ _id: id, claim_key: claimKey }).exec();
  }
}
