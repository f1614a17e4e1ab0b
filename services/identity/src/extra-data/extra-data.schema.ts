import { eventMarks } from '@masthead/core/events';
import { Schema, type Connection, type Model } from 'mongoose';

/** One stored field of a member's extra data in one resource (document 2, "Extra-data row"). */
export interface ExtraDataRecord {
  _id: number;
  resource_id: number;
  user_id: number;
  group_key: string;
  field_key: string;
  field_value: string;
  created_at: Date;
  updated_at: Date;
}

const extraDataSchema = new Schema<ExtraDataRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    group_key: { type: String, required: true },
    field_key: { type: String, required: true },
    field_value: { type: String, default: '' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'extra_data', versionKey: false },
);
// A row witnesses the event of its write (docs/adr/0180).
extraDataSchema.plugin(eventMarks);
// One row per field: serves the upsert and delete lookups, and the member's reads by its prefix.
extraDataSchema.index({ resource_id: 1, user_id: 1, group_key: 1, field_key: 1 }, { unique: true });

export const extraDataModel = (db: Connection): Model<ExtraDataRecord> =>
  db.models['ExtraData'] ?? db.model<ExtraDataRecord>('ExtraData', extraDataSchema);
