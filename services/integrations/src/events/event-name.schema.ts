import { Schema, type Connection, type Model } from 'mongoose';

/** A configured event name; `_id` is the name itself. */
export interface EventNameRecord {
  _id: string;
  private: boolean;
  description: string;
  created_at: Date;
  updated_at: Date;
}

const eventNameSchema = new Schema<EventNameRecord>(
  {
    _id: { type: String, required: true },
    private: { type: Boolean, required: true },
    description: { type: String, default: '' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'event_names', versionKey: false },
);
// The whole (short) list is read at once and cached: no index beyond `_id`.

export const eventNameModel = (db: Connection): Model<EventNameRecord> =>
  db.models['EventName'] ?? db.model<EventNameRecord>('EventName', eventNameSchema);
