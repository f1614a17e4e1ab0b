import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The claim on one provider write (docs/adr/0121). `_id` is the write's idempotency key, so the
 * insert that claims it is atomic on FerretDB and MongoDB alike; `object_id` is the provider
 * object once written. A claim without one is in flight, or its holder died mid-write.
 */
export interface ProviderWriteRecord {
  _id: string;
  /** Identifies the holder, so that only it (or one taker-over) releases or replaces the claim. */
  token: string;
  object_id: string | null;
  created_at: Date;
  /** Called off for good before anything was written (docs/adr/0223): never written, released or taken over. */
  called_off?: boolean;
}

const providerWriteSchema = new Schema<ProviderWriteRecord>(
  {
    _id: { type: String, required: true },
    token: { type: String, required: true },
    object_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    called_off: { type: Boolean },
  },
  { collection: 'provider_writes', versionKey: false },
);

export const providerWriteModel = (db: Connection): Model<ProviderWriteRecord> =>
  db.models['ProviderWrite'] ?? db.model<ProviderWriteRecord>('ProviderWrite', providerWriteSchema);
