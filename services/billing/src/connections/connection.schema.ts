import { sealedSecretSchema } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from '@masthead/core/secrets';

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
  /** The platform's connect client ID (`ca_…`) for this mode, set by the operator (docs/adr/0126). */
  client_id?: string;
  /** The account connected through the connect exchange; absent when none (docs/adr/0126). */
  connected_account?: ConnectedAccountRecord;
}

/** A connected account as the provider's token exchange described it. */
export interface ConnectedAccountRecord {
  account_id: string;
  livemode: boolean;
  scope: string;
  publishable_key: string;
  /** `{access_token, refresh_token}` as JSON, sealed like the secret key (its own associated data). */
  tokens: SealedSecret;
  /** The provider-write key of the exchange that recorded it (docs/adr/0121): its crash-window lookup. */
  connect_key: string;
  connected_at: Date;
  /** The admin (user ID) who connected it. */
  connected_by: number;
}

const connectionSchema = new Schema<ConnectionRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    mode: { type: String, required: true },
    secret_key: { type: sealedSecretSchema, required: true },
    secret_key_last4: { type: String, required: true },
    updated_at: { type: Date, required: true },
    client_id: { type: String },
    connected_account: {
      type: new Schema<ConnectedAccountRecord>(
        {
          account_id: { type: String, required: true },
          livemode: { type: Boolean, required: true },
          scope: { type: String, required: true },
          publishable_key: { type: String, required: true },
          tokens: { type: sealedSecretSchema, required: true },
          connect_key: { type: String, required: true },
          connected_at: { type: Date, required: true },
          connected_by: { type: Number, required: true },
        },
        { _id: false },
      ),
    },
  },
  { collection: 'cardprovider_connections', versionKey: false },
);
// Serves the rotation re-seal: every record still sealed with an old key.
connectionSchema.index({ 'secret_key.key_id': 1 });

export const connectionModel = (db: Connection): Model<ConnectionRecord> =>
  db.models['CardProviderConnection'] ?? db.model<ConnectionRecord>('CardProviderConnection', connectionSchema);
