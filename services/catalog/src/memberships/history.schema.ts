import { Schema, type Connection, type Model } from 'mongoose';

/**
 * What happened to a membership. Billing's changes (docs/adr/0145, 0146): `renewed` (a paid
 * period), `changed` (end date or autorenew set by an external store), and the ends `lapsed`
 * (renewal failed for good), `refunded`, `downgraded`, `disputed` (a chargeback lost).
 */
export const MEMBERSHIP_ACTIONS = [
  'created',
  'renewal_changed',
  'detached',
  'renewed',
  'changed',
  'lapsed',
  'refunded',
  'downgraded',
  'disputed',
] as const;
/** How billing may end a membership (EndMembership's `reason`). */
export const END_REASONS = ['lapsed', 'refunded', 'downgraded', 'disputed', 'changed'] as const;
export type EndReason = (typeof END_REASONS)[number];
export type MembershipAction = (typeof MEMBERSHIP_ACTIONS)[number];

export interface MembershipChangeRecord {
  _id: number;
  membership_id: number;
  user_id: number;
  resource_id: number;
  pricing_id: number;
  action: MembershipAction;
  created_at: Date;
}

const historySchema = new Schema<MembershipChangeRecord>(
  {
    _id: { type: Number, required: true },
    membership_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    pricing_id: { type: Number, required: true },
    action: { type: String, required: true, enum: MEMBERSHIP_ACTIONS },
    created_at: { type: Date, required: true },
  },
  { collection: 'membership_history', versionKey: false },
);
// Serves ListMemberships with include_history: a user's changes in a resource, newest first.
historySchema.index({ resource_id: 1, user_id: 1, created_at: -1 });

export const membershipHistoryModel = (db: Connection): Model<MembershipChangeRecord> =>
  db.models['MembershipChange'] ?? db.model<MembershipChangeRecord>('MembershipChange', historySchema);
