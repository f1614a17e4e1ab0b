import { Schema, type Connection, type Model } from 'mongoose';

/**
 * How a pass got (or is getting) its attendee. `_id` is the pass ID: one assignment or
 * invitation per pass at a time, held by the unique key (docs/adr/0152).
 */
export interface PassAssignmentRecord {
  _id: number;
  resource_id: number;
  /** `invite`: by email, pending until activated; `direct`: the owner named the member. */
  kind: 'invite' | 'direct';
  status: 'pending' | 'assigned';
  email: string | null;
  code: string | null;
  /** The lowercased code (invitations are found case-insensitively), `direct:<pass>` otherwise. */
  code_key: string;
  user_id: number | null;
  created_at: Date;
  assigned_at: Date | null;
}

const passAssignmentSchema = new Schema<PassAssignmentRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    kind: { type: String, required: true },
    status: { type: String, required: true },
    email: { type: String, default: null },
    code: { type: String, default: null },
    code_key: { type: String, required: true },
    user_id: { type: Number, default: null },
    created_at: { type: Date, required: true },
    assigned_at: { type: Date, default: null },
  },
  { collection: 'ti_event_pass_assignments', versionKey: false },
);
// Serves invitation validation and activation: the code within the resource.
passAssignmentSchema.index({ resource_id: 1, code_key: 1 }, { unique: true });

export const passAssignmentModel = (db: Connection): Model<PassAssignmentRecord> =>
  db.models['PassAssignment'] ?? db.model<PassAssignmentRecord>('PassAssignment', passAssignmentSchema);

/** One use of a pass's unassign limit: the insert of `<pass>:<n>` is the claim. */
export interface PassUnassignRecord {
  _id: string;
  pass_id: number;
  n: number;
  user_id: number | null;
  created_at: Date;
}

const passUnassignSchema = new Schema<PassUnassignRecord>(
  {
    _id: { type: String, required: true },
    pass_id: { type: Number, required: true },
    n: { type: Number, required: true },
    user_id: { type: Number, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'ti_event_pass_unassigns', versionKey: false },
);
// Serves the count of a pass's unassigns.
passUnassignSchema.index({ pass_id: 1 });

export const passUnassignModel = (db: Connection): Model<PassUnassignRecord> =>
  db.models['PassUnassign'] ?? db.model<PassUnassignRecord>('PassUnassign', passUnassignSchema);
