import { Schema, type Connection, type Model } from 'mongoose';

export type RelationshipState = 'active' | 'locked' | 'suspended' | 'removed';
export type ResourceRole = 'user' | 'admin' | 'partner';

/** A user's tie to one resource: status, role, resource password (their newest state: docs/adr/0210) and per-resource extra. */
export interface RelationshipRecord {
  /** `<resource_id>:<user_id>`: the natural key, so that lookups are `_id` equality. */
  _id: string;
  resource_id: number;
  user_id: number;
  status: RelationshipState;
  role: ResourceRole;
  /** Resource password (argon2id PHC); when set it replaces the global password here. */
  password_hash: string | null;
  extra: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/**
 * The security fields: since docs/adr/0210 their newest state is a credential version; the
 * relationship row keeps the values it was created with (version 0) and no update writes them.
 */
export type RelationshipCredentials = Pick<RelationshipRecord, 'status' | 'role' | 'password_hash'>;

const relationshipSchema = new Schema<RelationshipRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    status: { type: String, required: true, default: 'active' },
    role: { type: String, required: true, default: 'user' },
    password_hash: { type: String, default: null },
    extra: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'relationships', versionKey: false, minimize: false },
);
// Serves "resources of a user" reads (profile removal, resource summaries).
relationshipSchema.index({ user_id: 1 });

export const relationshipKey = (resourceId: number, userId: number): string => `${resourceId}:${userId}`;

export const relationshipModel = (db: Connection): Model<RelationshipRecord> =>
  db.models['Relationship'] ?? db.model<RelationshipRecord>('Relationship', relationshipSchema);
