import { Schema, type Connection, type Model } from 'mongoose';
import type { TeamMemberRecord } from '../teams/team-member.schema.js';

/** A relationship as it was before an activation reactivated it: put back if the activation fails for good. */
export type PreviousRelationship = Pick<TeamMemberRecord, 'role' | 'status' | 'pricing_id'>;

/**
 * One user's activation of an invitation; the row is the claim of one of the invite's slots.
 * The other claims it takes (a team relationship, a seat of the team Pricing) name it
 * (`activation_id`), so that they and the grant succeed or fail together (docs/adr/0233): the row
 * is `granting` until the membership is granted (or nothing is to be granted), then `granted`.
 * A `granting` row is finished by the member's retry or the pending-grant pass, or given back
 * with its claims when the grant is refused for good.
 */
export interface ActivationRecord {
  _id: string;
  invite_id: number;
  user_id: number;
  /** Slot number below the invite's activations_limit (docs/adr/0134). */
  slot: number;
  /** Absent on rows written before activations had states: those were granted. */
  state?: 'granting' | 'granted';
  /** The relationship this activation reactivated, as it was before. */
  previous_relationship?: PreviousRelationship | null;
  /** The resource's `single_subscription` when activated: the grant's replacement rule. */
  single_subscription?: boolean;
  membership_id?: number | null;
  created_at: Date;
}

const previousRelationshipSchema = new Schema<PreviousRelationship>(
  { role: String, status: String, pricing_id: { type: Number, default: null } },
  { _id: false },
);

const activationSchema = new Schema<ActivationRecord>(
  {
    _id: { type: String, required: true },
    invite_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    slot: { type: Number, required: true },
    state: { type: String },
    previous_relationship: { type: previousRelationshipSchema, default: null },
    single_subscription: { type: Boolean, default: false },
    membership_id: { type: Number, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'invite_activations', versionKey: false },
);
// The cap claim: one row per slot of an invite.
activationSchema.index({ invite_id: 1, slot: 1 }, { unique: true });
// One activation per user and invite (reuse rules, document 2 D).
activationSchema.index({ invite_id: 1, user_id: 1 }, { unique: true });
// Serves the pending-grant pass: activations still granting.
activationSchema.index({ state: 1 });

export const activationModel = (db: Connection): Model<ActivationRecord> =>
  db.models['InviteActivation'] ?? db.model<ActivationRecord>('InviteActivation', activationSchema);
