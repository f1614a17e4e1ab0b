import { Schema, type Connection, type Model } from 'mongoose';

export interface MembershipRecord {
  _id: number;
  user_id: number;
  resource_id: number;
  plan_id: number;
  pricing_id: number;
  active: boolean;
  autorenew: boolean;
  is_team_subscription: boolean;
  start_date: Date;
  /** Null for an open-ended membership. */
  end_date: Date | null;
  created_at: Date;
  updated_at: Date;
}

const membershipSchema = new Schema<MembershipRecord>(
  {
    _id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    plan_id: { type: Number, required: true },
    pricing_id: { type: Number, required: true },
    active: { type: Boolean, required: true },
    autorenew: { type: Boolean, required: true },
    is_team_subscription: { type: Boolean, required: true },
    start_date: { type: Date, required: true },
    end_date: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'memberships', versionKey: false },
);
// Serves ListMemberships (a user's active memberships in a resource, newest first) and the
// "already holds this pricing" check of AttachDefaultMembership / GrantMembership.
membershipSchema.index({ resource_id: 1, user_id: 1, active: 1, created_at: -1 });

export const membershipModel = (db: Connection): Model<MembershipRecord> =>
  db.models['Membership'] ?? db.model<MembershipRecord>('Membership', membershipSchema);
