import { Schema, type Connection, type Model } from 'mongoose';
import type { ProviderMode } from './connection.schema.js';

/**
 * An outstanding connect `state` (docs/adr/0126): `_id` is the SHA-256 of the value handed to the
 * admin, never the value. Bound to the resource, mode and admin that asked for it; deleted when
 * an exchange completes with it, refused after `expires_at`.
 */
export interface ConnectStateRecord {
  _id: string;
  resource_id: number;
  mode: ProviderMode;
  user_id: number;
  expires_at: Date;
  created_at: Date;
}

const connectStateSchema = new Schema<ConnectStateRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    mode: { type: String, required: true },
    user_id: { type: Number, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'cardprovider_connect_states', versionKey: false },
);

export const connectStateModel = (db: Connection): Model<ConnectStateRecord> =>
  db.models['CardProviderConnectState'] ?? db.model<ConnectStateRecord>('CardProviderConnectState', connectStateSchema);
