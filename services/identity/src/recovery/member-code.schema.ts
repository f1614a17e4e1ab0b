import { Schema, type Connection, type Model } from 'mongoose';

/** What a code proves when it is used (docs/adr/0055). */
export type CodePurpose = 'email_confirmation' | 'password_reset' | 'email_change' | 'external_login';

/** One live code. Keyed by its public selector; the secret part is stored only as a hash. */
export interface MemberCodeRecord {
  _id: string;
  purpose: CodePurpose;
  verifier_hash: string;
  user_id: number;
  /** The resource the code was requested in; it is usable only there. */
  resource_id: number;
  /** The address the code was sent to: the new one for an email change. */
  email: string;
  expires_at: Date;
  created_at: Date;
}

const codeSchema = new Schema<MemberCodeRecord>(
  {
    _id: { type: String, required: true },
    purpose: { type: String, required: true },
    verifier_hash: { type: String, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    email: { type: String, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'member_codes', versionKey: false },
);
// Serves "replace the member's earlier code of this purpose" at issue.
codeSchema.index({ user_id: 1, purpose: 1 });

export const memberCodeModel = (db: Connection): Model<MemberCodeRecord> =>
  db.models['MemberCode'] ?? db.model<MemberCodeRecord>('MemberCode', codeSchema);
