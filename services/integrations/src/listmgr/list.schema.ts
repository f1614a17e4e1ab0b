import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A provider list stored for one resource (document 2 H, list record) with the resource's own
 * visibility flags: `show_list` (members see and pick it), `require_list` and `allowed_list`
 * (selectable, and visible to an eligible caller acting for another user).
 */
export interface ListRecord {
  _id: number;
  resource_id: number;
  list_id: string;
  list_name: string;
  client_name: string;
  confirmed_opt: boolean;
  unsubscribe_settings: string;
  show_list: boolean;
  require_list: boolean;
  allowed_list: boolean;
  created_at: Date;
  updated_at: Date;
}

const listSchema = new Schema<ListRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    list_id: { type: String, required: true },
    list_name: { type: String, required: true },
    client_name: { type: String, default: '' },
    confirmed_opt: { type: Boolean, default: false },
    unsubscribe_settings: { type: String, default: '' },
    show_list: { type: Boolean, default: false },
    require_list: { type: Boolean, default: false },
    allowed_list: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'listmgr_lists', versionKey: false },
);
// Serves the operator's upsert and removal by provider list ID; its prefix serves a resource's
// list reads (a resource has a handful of lists, sorted and filtered in memory).
listSchema.index({ resource_id: 1, list_id: 1 }, { unique: true });

export const listModel = (db: Connection): Model<ListRecord> => db.models['ListmgrList'] ?? db.model<ListRecord>('ListmgrList', listSchema);

/**
 * The provider states last read for one email in one resource (the 600-second email-key cache of
 * document 2 H). `_id` is `<resource>:<lowercased email>`; expiry is checked on read (no TTL
 * index: DESIGN.md's MongoDB subset).
 */
export interface ListStateCacheRecord {
  _id: string;
  resource_id: number;
  states: Array<{ list_id: string; state: string }>;
  expires_at: Date;
}

const stateCacheSchema = new Schema<ListStateCacheRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    states: [{ _id: false, list_id: { type: String, required: true }, state: { type: String, default: '' } }],
    expires_at: { type: Date, required: true },
  },
  { collection: 'listmgr_state_cache', versionKey: false },
);

export const stateCacheModel = (db: Connection): Model<ListStateCacheRecord> =>
  db.models['ListmgrStateCache'] ?? db.model<ListStateCacheRecord>('ListmgrStateCache', stateCacheSchema);
