import { Schema, type Connection, type Model } from 'mongoose';

/** A pass authorization token, stored as its SHA-256 only (docs/adr/0153). */
export interface PassTokenRecord {
  /** SHA-256 of the token, hex. */
  _id: string;
  pass_id: number;
  resource_id: number;
  /** The attendee the token stands for. */
  user_id: number;
  expires_at: Date;
  created_at: Date;
}

const passTokenSchema = new Schema<PassTokenRecord>(
  {
    _id: { type: String, required: true },
    pass_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'ti_event_pass_tokens', versionKey: false },
);
// Serves revoking a pass's tokens when its assignment ends.
passTokenSchema.index({ pass_id: 1 });

export const passTokenModel = (db: Connection): Model<PassTokenRecord> =>
  db.models['PassToken'] ?? db.model<PassTokenRecord>('PassToken', passTokenSchema);
