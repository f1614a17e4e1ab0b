import { Schema, type Connection, type Model } from 'mongoose';

/** A ticketed event of a resource (document 2 F). */
export interface TiEventRecord {
  _id: number;
  resource_id: number;
  /** The operator's key within the resource (UpsertEvent). */
  title: string;
  description: string | null;
  active: boolean;
  /** Image URLs. */
  photo: string[];
  start_date: Date | null;
  end_date: Date | null;
  created_at: Date;
  updated_at: Date;
}

const tiEventSchema = new Schema<TiEventRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    active: { type: Boolean, required: true },
    photo: { type: [String], default: [] },
    start_date: { type: Date, default: null },
    end_date: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'ti_events', versionKey: false },
);
// Serves UpsertEvent's key and GET /ti-events (the resource's events).
tiEventSchema.index({ resource_id: 1, title: 1 }, { unique: true });

export const tiEventModel = (db: Connection): Model<TiEventRecord> =>
  db.models['TiEvent'] ?? db.model<TiEventRecord>('TiEvent', tiEventSchema);
