import { Schema, type Connection, type Model } from 'mongoose';

/** `active`: renews at `period_end`; `retrying`: an attempt failed; `lapsed` and `stopped` are over. */
export type RenewalStatus = 'active' | 'retrying' | 'lapsed' | 'stopped';

/** Billing's schedule of one paid membership it sold (see CONTEXT.md). */
export interface RenewalRecord {
  /** The membership ID. */
  _id: number;
  resource_id: number;
  user_id: number;
  pricing_id: number;
  mode: 'test' | 'live';
  /** Shown on renewal invoices, from the sale. */
  member_email: string;
  member_name: string;
  resource_title: string;
  status: RenewalStatus;
  /** The end date being renewed. */
  period_end: Date;
  /** Failed attempts for this period. */
  attempt: number;
  next_attempt_at: Date;
  updated_at: Date;
}

const renewalSchema = new Schema<RenewalRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    pricing_id: { type: Number, required: true },
    mode: { type: String, required: true },
    member_email: { type: String, default: '' },
    member_name: { type: String, default: '' },
    resource_title: { type: String, default: '' },
    status: { type: String, required: true },
    period_end: { type: Date, required: true },
    attempt: { type: Number, default: 0 },
    next_attempt_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'renewals', versionKey: false },
);
// Serves the due pass (a range on a background path, bounded by its batch; DESIGN.md "Hot paths").
renewalSchema.index({ next_attempt_at: 1 });

export const renewalModel = (db: Connection): Model<RenewalRecord> =>
  db.models['Renewal'] ?? db.model<RenewalRecord>('Renewal', renewalSchema);
