import { sealedSecretSchema } from '@masthead/core/mongo';
import type { SealedSecret } from '@masthead/core/secrets';
import { Schema, type Connection, type Model } from 'mongoose';

export const PROVIDERS = ['audience', 'crm', 'listmgr'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * A resource's configuration of one provider. `_id` is `<resource>:<provider>`, so one record
 * per pair by construction. The secret (API key, or the list manager's OAuth tokens as JSON) is
 * sealed with the record's identity as associated data; `settings` holds the non-secret rest,
 * read through the provider's zod schema (provider-settings.ts).
 */
export interface ProviderConfigRecord {
  _id: string;
  resource_id: number;
  provider: ProviderName;
  secret?: SealedSecret;
  /** Shown to operators instead of the secret. */
  secret_last4?: string;
  settings: Record<string, unknown>;
  updated_at: Date;
}

const providerConfigSchema = new Schema<ProviderConfigRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    provider: { type: String, required: true },
    secret: { type: sealedSecretSchema },
    secret_last4: { type: String },
    settings: { type: Schema.Types.Mixed, default: {} },
    updated_at: { type: Date, required: true },
  },
  { collection: 'provider_configs', versionKey: false, minimize: false },
);
// Serves the rotation re-seal: every record still sealed with an old key.
providerConfigSchema.index({ 'secret.key_id': 1 });

export const providerConfigModel = (db: Connection): Model<ProviderConfigRecord> =>
  db.models['ProviderConfig'] ?? db.model<ProviderConfigRecord>('ProviderConfig', providerConfigSchema);

export const providerConfigId = (resourceId: number, provider: ProviderName): string => `${resourceId}:${provider}`;
