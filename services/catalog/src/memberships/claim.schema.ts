import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A membership claim: the right to create the one active membership of (resource, user,
 * pricing). Its string `_id` is the key (see claimKey), so a second insert fails on the unique
 * `_id`, which is atomic on MongoDB and on FerretDB alike, unlike a guarded update.
 */
export interface MembershipClaimRecord {
  _id: string;
  /** Identifies this holder, so that only it (or a single taker-over) releases the claim. */
  token: string;
  /** The membership the claim stands for, once created. */
  membership_id: number | null;
  created_at: Date;
}

const claimSchema = new Schema<MembershipClaimRecord>(
  {
    _id: { type: String, required: true },
    token: { type: String, required: true },
    membership_id: { type: Number, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'membership_claims', versionKey: false },
);

export const membershipClaimModel = (db: Connection): Model<MembershipClaimRecord> =>
  db.models['MembershipClaim'] ?? db.model<MembershipClaimRecord>('MembershipClaim', claimSchema);
