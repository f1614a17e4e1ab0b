import { Schema, type Connection, type Model } from 'mongoose';

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
  /** Null until the owner assigns the pass (or an invitation of it is activated). */
  assign_id: number | null;
  /** Owner-supplied attendee data, returned as stored. */
  extra: Record<string, unknown>;
  /** `<purchase key>:<unit index>`: a retried confirmation issues no second pass. */
  pass_key: string;
  /** The reservation (purchase key) the pass was issued for. */
  purchase_key: string | null;
  created_at: Date;
  updated_at?: Date;
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
    pass_key: { type: String, required: true },
    purchase_key: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date },
  },
  { collection: 'ti_event_ticket_passes', versionKey: false, minimize: false },
);
// Serves GetMemberSummary and event access: the passes assigned to a user in a resource.
passSchema.index({ resource_id: 1, assign_id: 1 });
// Serves the owner's reads (GET /user/ti-events, /user/ti-event-tickets).
passSchema.index({ resource_id: 1, owner_id: 1 });
// Serves GET /user/ti-event/{id}/passes.
passSchema.index({ ti_event_id: 1 });
// One pass per unit of a confirmed reservation, also under retries.
passSchema.index({ pass_key: 1 }, { unique: true });
// Serves the confirmation's answer: the passes of one purchase.
passSchema.index({ purchase_key: 1 });

export const passModel = (db: Connection): Model<PassRecord> => db.models['Pass'] ?? db.model<PassRecord>('Pass', passSchema);
