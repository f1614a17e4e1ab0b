import type { SealedSecret } from '@masthead/core/secrets';
import { Schema, type Connection, type Model } from 'mongoose';
import { sealedSecretSchema } from '@masthead/core/mongo';

/** A publisher's endpoint for one resource. */
export interface WebhookEndpointRecord {
  _id: number;
  resource_id: number;
  url: string;
  /** Empty: every type. */
  event_types: string[];
  active: boolean;
  description: string;
  /** The Standard Webhooks signing secret (`whsec_…`), sealed. */
  secret: SealedSecret;
  created_at: Date;
  updated_at: Date;
}

const endpointSchema = new Schema<WebhookEndpointRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    url: { type: String, required: true },
    event_types: { type: [String], default: [] },
    active: { type: Boolean, required: true },
    description: { type: String, default: '' },
    secret: { type: sealedSecretSchema, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'webhook_endpoints', versionKey: false },
);
// Serves the ingest (a resource's active endpoints, per mapped event) and the operator's list.
endpointSchema.index({ resource_id: 1, active: 1 });

export const endpointModel = (db: Connection): Model<WebhookEndpointRecord> =>
  db.models['WebhookEndpoint'] ?? db.model<WebhookEndpointRecord>('WebhookEndpoint', endpointSchema);
