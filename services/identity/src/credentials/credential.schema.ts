import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One version of the security state of one scope (docs/adr/0210): a user's password, `active`
 * and global role, or a relationship's state, role and resource password. Versions are only
 * inserted, never updated: `_id` `<scope>:<version>` is unique, so of two writers that read the
 * same newest version exactly one lands the next.
 */
export interface CredentialVersion<S extends object = object> {
  _id: string;
  /** `user:<user_id>` or `rel:<resource_id>:<user_id>`. */
  scope: string;
  user_id: number;
  version: number;
  /** The whole state of the scope in this version. */
  state: S;
  /** Random: tells this insert from another of the same `_id` after a prune. */
  nonce: string;
  /** The `nonce` of the version this one was decided on; null on version 0 (the row's fields). */
  base: string | null;
  created_at: Date;
}

const credentialSchema = new Schema<CredentialVersion>(
  {
    _id: { type: String, required: true },
    scope: { type: String, required: true },
    user_id: { type: Number, required: true },
    version: { type: Number, required: true },
    state: { type: Schema.Types.Mixed, required: true },
    nonce: { type: String, required: true },
    base: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'credentials', versionKey: false, minimize: false },
);
// Serves every read of a member's credentials (all its scopes in one equality: sign-in, session check).
credentialSchema.index({ user_id: 1 });

export const credentialModel = (db: Connection): Model<CredentialVersion> =>
  db.models['Credential'] ?? db.model<CredentialVersion>('Credential', credentialSchema);
