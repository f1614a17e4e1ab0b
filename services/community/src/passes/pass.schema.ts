import { Schema, type Connection, type Model } from 'mongoose';
import { watchSummaryRows } from '../members/summary-changes.js';

/**
 * An event pass: one admission bought under a ticket of an event. The **owner** bought it; the
 * **assignee** (`assign_id`) attends. Owning a pass is not event access; assignment is.
 */
export interface PassRecord {
  _id: number;
  ti_event_id: number;
  ticket_id: number;
  resource_id: number;
  owner_id: number;
  /** Null until the owner assigns the pass. */
  assign_id: number | null;
  /** Owner-supplied attendee data, returned as stored. */
  extra: Record<string, unknown>;
  created_at: Date;
}

const passSchema = new Schema<PassRecord>(
  {
    _id: { type: Number, required: true },
    ti_event_id: { type: Number, required: true },
    ticket_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    owner_id: { type: Number, required: true },
    assign_id: { type: Number, default: null },
    extra: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
  },
  { collection: 'ti_event_ticket_passes', versionKey: false, minimize: false },
);
// Serves GetMemberSummary: the passes assigned to a user in a resource.
passSchema.index({ resource_id: 1, assign_id: 1 });

// Part of member summaries, which identity caches: every write announces (ADR 0191).
watchSummaryRows(passSchema, 'passes');

export const passModel = (db: Connection): Model<PassRecord> => db.models['Pass'] ?? db.model<PassRecord>('Pass', passSchema);
