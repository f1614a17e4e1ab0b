import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A refund billing owes and has not made yet (docs/adr/0201): recorded before the provider is
 * asked, removed once the refund is on the provider and mirrored onto its transaction, so that an
 * outage or a crash in between leaves it for the next completion or the pass. `_id` is the
 * refund's idempotency key (one per transaction line), so recording it twice is one record.
 */
export interface DueRefundRecord {
  _id: string;
  transaction_id: number;
  /** The purchase line refunded (0-based). */
  line: number;
  /** Minor units: the line's amount. */
  amount: number;
  created_at: Date;
  /** Failed attempts so far; absent before the first (ADR 0221). */
  attempts?: number;
  /** Not tried again before this (a backoff after each failure); absent or null: now. */
  next_attempt_at?: Date | null;
  /** Why the last attempt failed, for operators: the provider's code and message, or the error's. */
  last_error?: string | null;
}

const dueRefundSchema = new Schema<DueRefundRecord>(
  {
    _id: { type: String, required: true },
    transaction_id: { type: Number, required: true },
    line: { type: Number, required: true },
    amount: { type: Number, required: true },
    created_at: { type: Date, required: true },
    attempts: { type: Number },
    next_attempt_at: { type: Date },
    last_error: { type: String },
  },
  { collection: 'refunds_due', versionKey: false },
);
// Serves a completion's own due refunds (`of`). The pass's oldest-first read has none: the
// collection holds only refunds not made yet, almost always none.
dueRefundSchema.index({ transaction_id: 1 });

export const dueRefundModel = (db: Connection): Model<DueRefundRecord> =>
  db.models['DueRefund'] ?? db.model<DueRefundRecord>('DueRefund', dueRefundSchema);
