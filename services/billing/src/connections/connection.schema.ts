import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from './secret-box.js';

export type ProviderMode = 'test' | 'live';

/**
 * A resource's card-provider connection in one mode. Resource 0 is the deployment's own
 * connection (POST /account-requests-payment). `_id` is `<resource>:<mode>`, so one record per
 * pair by construction.
 */
export interface ConnectionRecord {
  _id: string;
  resource_id: number;
  mode: ProviderMode;
  secret_key: SealedSecret;
  /** Shown to operators instead of the key. */
  secret_key_last4: string;
  updated_at: Date;
}

const sealedSchema = new Schema<SealedSecret>(
  {
    key_id: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    ciphertext: { type: String, required: true },
  },
  { _id: false },
);

const connectionSchema = new Schema<ConnectionRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    mode: { type: String, required: true },
    secret_key: { type: sealedSchema, required: true },
    secret_key_last4: { type: String, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'cardprovider_connections', versionKey: false },
);
// Serves the rotation re-seal: every record still sealed with an old key.
connectionSchema.index({ 'secret_key.key_id': 1 });

export const connectionModel = (db: Connection): Model<ConnectionRecord> =>
  db.models['CardProviderConnection'] ?? db.model<ConnectionRecord>('CardProviderConnection', connectionSchema);
