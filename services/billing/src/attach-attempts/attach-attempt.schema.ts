import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One slot of a member's card-attachment attempts in one resource and hour. `_id` is
 * `<resource>:<user>:<window start>:<slot>`, slot 1..limit: an attempt claims the first free slot
 * by a unique insert, so concurrent attempts never exceed the limit (FerretDB loses concurrent
 * `$inc` updates, ADR 0002).
 */
export interface AttachAttemptRecord {
  _id: string;
  created_at: Date;
}

const attachAttemptSchema = new Schema<AttachAttemptRecord>(
  {
    _id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'card_attach_attempts', versionKey: false },
);

export const attachAttemptModel = (db: Connection): Model<AttachAttemptRecord> =>
  db.models['CardAttachAttempt'] ?? db.model<AttachAttemptRecord>('CardAttachAttempt', attachAttemptSchema);
