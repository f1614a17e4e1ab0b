import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The record that a membership was detached. Its `_id` is the membership ID, so that of two
 * callers that both deactivated the same membership (FerretDB applies the guarded update as
 * read-then-write, DESIGN.md) exactly one inserts it and writes the history row and the event.
 */
export interface MembershipDetachmentRecord {
  _id: number;
  created_at: Date;
}

const detachmentSchema = new Schema<MembershipDetachmentRecord>(
  {
    _id: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'membership_detachments', versionKey: false },
);

export const membershipDetachmentModel = (db: Connection): Model<MembershipDetachmentRecord> =>
  db.models['MembershipDetachment'] ?? db.model<MembershipDetachmentRecord>('MembershipDetachment', detachmentSchema);
