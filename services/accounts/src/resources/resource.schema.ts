import { Schema, type Connection, type Model } from 'mongoose';

export interface ResourceRecord {
  _id: number;
  public_key: string;
  title: string;
  host: string | null;
  origin: string | null;
  partner_id: number;
  active: boolean;
  settings: Record<string, unknown>;
  allowed_origins: string[];
  created_at: Date;
  updated_at: Date;
}

const resourceSchema = new Schema<ResourceRecord>(
  {
    _id: { type: Number, required: true },
    public_key: { type: String, required: true },
    title: { type: String, required: true },
    host: { type: String, default: null },
    origin: { type: String, default: null },
    partner_id: { type: Number, required: true },
    active: { type: Boolean, required: true, default: true },
    settings: { type: Schema.Types.Mixed, default: {} },
    allowed_origins: { type: [String], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'resources', versionKey: false, minimize: false },
);
// Serves ResolveResource (public key → resource) and keeps keys unique.
resourceSchema.index({ public_key: 1 }, { unique: true });
// Serves ListPartnerResources: a partner's active resources.
resourceSchema.index({ partner_id: 1, active: 1 });

export const resourceModel = (db: Connection): Model<ResourceRecord> =>
  db.models['Resource'] ?? db.model<ResourceRecord>('Resource', resourceSchema);
