import { Schema, type Connection, type Model } from 'mongoose';

export interface TemplateRecord {
  _id: number;
  resource_id: number;
  name: string;
  version: string;
  title: string | null;
  slug: string | null;
  template: string;
  javascript: string;
  css: string;
  settings: Record<string, unknown>;
  active: boolean;
  published: boolean;
  created_at: Date;
  updated_at: Date;
}

const templateSchema = new Schema<TemplateRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    name: { type: String, required: true },
    version: { type: String, required: true },
    title: { type: String, default: null },
    slug: { type: String, default: null },
    template: { type: String, default: '' },
    javascript: { type: String, default: '' },
    css: { type: String, default: '' },
    settings: { type: Schema.Types.Mixed, default: {} },
    active: { type: Boolean, required: true },
    published: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'templates', versionKey: false, minimize: false },
);
// Serves GetPublishedTemplate (a name's versions in a resource) and keeps a version unique.
templateSchema.index({ resource_id: 1, name: 1, version: 1 }, { unique: true });

export const templateModel = (db: Connection): Model<TemplateRecord> =>
  db.models['Template'] ?? db.model<TemplateRecord>('Template', templateSchema);
