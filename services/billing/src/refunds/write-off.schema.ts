import { Schema, type Connection, type Model } from 'mongoose';

/**
 * An owed refund an operator wrote off (docs/adr/0223): the member was paid back outside the
 * card provider, so billing never makes it. Kept for audit; `_id` is the refund's key, so a
 * repeated or concurrent write-off of one refund is one record (the first reason stands).
 */
export interface RefundWriteOffRecord {
  _id: string;
  transaction_id: number;
  line: number;
  /** Minor units: what was owed. */
  amount: number;
  /** The operator's words: how the member was paid back. */
  reason: string;
  written_off_at: Date;
  /** False when the provider could not be asked whether an earlier attempt had made it after all. */
  provider_checked: boolean;
}

const writeOffSchema = new Schema<RefundWriteOffRecord>(
  {
    _id: { type: String, required: true },
    transaction_id: { type: Number, required: true },
    line: { type: Number, required: true },
    amount: { type: Number, required: true },
    reason: { type: String, required: true },
    written_off_at: { type: Date, required: true },
    provider_checked: { type: Boolean, required: true },
  },
  { collection: 'refund_write_offs', versionKey: false },
);

export const refundWriteOffModel = (db: Connection): Model<RefundWriteOffRecord> =>
  db.models['RefundWriteOff'] ?? db.model<RefundWriteOffRecord>('RefundWriteOff', writeOffSchema);
