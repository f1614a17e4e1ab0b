import { Schema, type Connection, type Model } from 'mongoose';

export type ServiceAccountState = 'active' | 'suspended';

/** A resource-scoped service account; `_id` is its public integer ID. Never holds the key. */
export interface ServiceAccountRecord {
  _id: number;
  resource_id: number;
  /** The identity user (global role `service_account`) the account acts as. */
  user_id: number;
  title: string;
  status: ServiceAccountState;
  full_access: boolean;
  /** Exact action names (`METHOD /path`), see service-account.actions.ts. */
  grants: string[];
  /** SHA-256 hex of the key: the `_id` of its lookup row. */
  key_hash: string;
  request_count: number;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  /** Set once by revocation; a revoked account never works again. */
  revoked_at: Date | null;
}

/** Lookup row: key hash → account. Keyed by `_id` because the gateway resolves keys by it. */
export interface ServiceAccountKeyRecord {
  _id: string;
  service_account_id: number;
  created_at: Date;
}

const serviceAccountSchema = new Schema<ServiceAccountRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    title: { type: String, required: true },
    status: { type: String, required: true, default: 'active' },
    full_access: { type: Boolean, required: true, default: false },
    grants: { type: [String], default: [] },
    key_hash: { type: String, required: true },
    request_count: { type: Number, required: true, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    last_used_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'service_accounts', versionKey: false },
);
// Serves the operator's list of a resource's service accounts.
serviceAccountSchema.index({ resource_id: 1 });

const serviceAccountKeySchema = new Schema<ServiceAccountKeyRecord>(
  {
    _id: { type: String, required: true },
    service_account_id: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'service_account_keys', versionKey: false },
);

export interface ServiceAccountModels {
  accounts: Model<ServiceAccountRecord>;
  keys: Model<ServiceAccountKeyRecord>;
}

export const serviceAccountModels = (db: Connection): ServiceAccountModels => ({
  accounts: db.models['ServiceAccount'] ?? db.model<ServiceAccountRecord>('ServiceAccount', serviceAccountSchema),
  keys: db.models['ServiceAccountKey'] ?? db.model<ServiceAccountKeyRecord>('ServiceAccountKey', serviceAccountKeySchema),
});
