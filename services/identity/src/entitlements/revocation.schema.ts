import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry of the revocation lists (docs/adr/0248): tokens of a session (`kind` session) or of a
 * member (`kind` member) in a resource, issued at or before `stale_through`, are stale. Entries are
 * only inserted, one per change and second: `_id` is `s:<session>:<second>` or
 * `m:<resource>:<user>:<second>`, so replicas recording the same event write one row, and a later
 * change is a row of its own (FerretDB applies `$max` as read-then-write and could keep the earlier
 * of two racing stamps). The list takes each subject's latest. Resource 0 stands for every
 * resource (a password reset ends the member's sessions everywhere). An entry outlives every token
 * it concerns, then goes (`expires_at`).
 */
export interface RevocationRecord {
  _id: string;
  kind: 'session' | 'member';
  resource_id: number;
  /** The session ID for `session` entries, the user ID for `member` ones. */
  subject: number;
  /** Unix seconds. */
  stale_through: number;
  expires_at: Date;
}

const revocationSchema = new Schema<RevocationRecord>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    resource_id: { type: Number, required: true },
    subject: { type: Number, required: true },
    stale_through: { type: Number, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'entitlement_revocations', versionKey: false },
);
// Serves the list of one resource (and of resource 0) by equality.
revocationSchema.index({ resource_id: 1 });

export const revocationModel = (db: Connection): Model<RevocationRecord> =>
  db.models['EntitlementRevocation'] ?? db.model<RevocationRecord>('EntitlementRevocation', revocationSchema);
