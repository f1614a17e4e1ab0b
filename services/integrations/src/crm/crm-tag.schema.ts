import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A CRM tag stored for one resource (document 2 H, CRM tag record): the provider's tag
 * (`tag_id`, `tag_type`, `tag`, `description`, `subscriber_count` as last imported) and the
 * resource's own flags. `_id` is the local ID members use as the key of PUT user/tags.
 */
export interface CrmTagRecord {
  _id: number;
  resource_id: number;
  tag_id: string;
  tag_type: string;
  tag: string;
  description: string;
  subscriber_count: number;
  allowed_for_users: boolean;
  required: boolean;
  created_at: Date;
  updated_at: Date;
}

const crmTagSchema = new Schema<CrmTagRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    tag_id: { type: String, required: true },
    tag_type: { type: String, default: '' },
    tag: { type: String, default: '' },
    description: { type: String, default: '' },
    subscriber_count: { type: Number, default: 0 },
    allowed_for_users: { type: Boolean, default: false },
    required: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'crm_tags', versionKey: false },
);
// Serves the import's upsert and the matching of a contact's provider tags (resource, tag_id);
// its prefix serves the resource's tag lists. One stored tag per provider tag and resource.
crmTagSchema.index({ resource_id: 1, tag_id: 1 }, { unique: true });

export const crmTagModel = (db: Connection): Model<CrmTagRecord> => db.models['CrmTag'] ?? db.model<CrmTagRecord>('CrmTag', crmTagSchema);
