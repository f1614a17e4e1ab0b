import { Schema, type Connection, type Model } from 'mongoose';

/** One user's activation of an invitation; the row is the claim of one of the invite's slots. */
export interface ActivationRecord {
  _id: string;
  invite_id: number;
  user_id: number;
  /** Slot number below the invite's activations_limit (docs/adr/0134). */
  slot: number;
  created_at: Date;
}

const activationSchema = new Schema<ActivationRecord>(
  {
    _id: { type: String, required: true },
    invite_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    slot: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'invite_activations', versionKey: false },
);
// The cap claim: one row per slot of an invite.
activationSchema.index({ invite_id: 1, slot: 1 }, { unique: true });
// One activation per user and invite (reuse rules, document 2 D).
activationSchema.index({ invite_id: 1, user_id: 1 }, { unique: true });

export const activationModel = (db: Connection): Model<ActivationRecord> =>
  db.models['InviteActivation'] ?? db.model<ActivationRecord>('InviteActivation', activationSchema);
