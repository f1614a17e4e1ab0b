import { Schema, type Connection, type Model } from 'mongoose';

/**
 * An invitation: a team invite (`team_id`, one email, `activations_limit` 1) or an operator's
 * invitation code for a Pricing. Invitations are resource-scoped: the header resource is stored
 * and every lookup names it (docs/adr/0135).
 */
export interface InviteRecord {
  _id: number;
  resource_id: number;
  code: string;
  /** Lowercased code: validation and activation are case-insensitive within the resource. */
  code_key: string;
  /** Team invites: `<team_id>:<email>`, unique (one invite per email and team); codes: `code:<_id-free key>`. */
  dedupe_key: string;
  email: string | null;
  user_name: string | null;
  title: string;
  description: string;
  team_id: number | null;
  pricing_id: number | null;
  /** Positive = cap of activations; 0 = none. */
  activations_limit: number;
  start_date: Date | null;
  end_date: Date | null;
  created_by: number | null;
  created_at: Date;
  updated_at?: Date;
}

const inviteSchema = new Schema<InviteRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    code: { type: String, required: true },
    code_key: { type: String, required: true },
    dedupe_key: { type: String, required: true },
    email: { type: String, default: null },
    user_name: { type: String, default: null },
    title: { type: String, required: true },
    description: { type: String, default: '' },
    team_id: { type: Number, default: null },
    pricing_id: { type: Number, default: null },
    activations_limit: { type: Number, required: true },
    start_date: { type: Date, default: null },
    end_date: { type: Date, default: null },
    created_by: { type: Number, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date },
  },
  { collection: 'invites', versionKey: false },
);
// Serves validation and activation: the code within the resource, case-insensitive.
inviteSchema.index({ resource_id: 1, code_key: 1 }, { unique: true });
// One invite per email and team, also under parallel creation.
inviteSchema.index({ dedupe_key: 1 }, { unique: true });
// Serves the team's invite lists.
inviteSchema.index({ team_id: 1 });

export const inviteModel = (db: Connection): Model<InviteRecord> => db.models['Invite'] ?? db.model<InviteRecord>('Invite', inviteSchema);
