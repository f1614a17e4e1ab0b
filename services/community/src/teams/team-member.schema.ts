import { Schema, type Connection, type Model } from 'mongoose';
import { watchSummaryRows } from '../members/summary-changes.js';

export const TEAM_ROLES = ['owner', 'admin', 'user'] as const;
export const TEAM_MEMBER_STATUSES = ['active', 'suspended', 'removed'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
export type TeamMemberStatus = (typeof TEAM_MEMBER_STATUSES)[number];

/** A user's relationship with a team; "removed" rows are kept (history), never deleted. */
export interface TeamMemberRecord {
  _id: number;
  team_id: number;
  user_id: number;
  role: TeamRole;
  status: TeamMemberStatus;
  /**
   * The relationship's seat number, unique in the team: inserting the row claims the seat, so a
   * team's `member_limit` holds under parallel activations (docs/adr/0134).
   */
  seat: number;
  /** The Pricing the relationship holds or requested (team seats); null for none. */
  pricing_id?: number | null;
  /** The invitation activation that created the relationship: given back with it if its grant is refused (docs/adr/0233). */
  activation_id?: string | null;
  created_at: Date;
  updated_at?: Date;
}

const teamMemberSchema = new Schema<TeamMemberRecord>(
  {
    _id: { type: Number, required: true },
    team_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    role: { type: String, required: true, enum: TEAM_ROLES },
    status: { type: String, required: true, enum: TEAM_MEMBER_STATUSES },
    seat: { type: Number, required: true },
    pricing_id: { type: Number, default: null },
    activation_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date },
  },
  { collection: 'team_members', versionKey: false },
);
// Serves GetMemberSummary and GET /user/teams: a user's current team relationships.
teamMemberSchema.index({ user_id: 1, status: 1 });
// One relationship per user and team: invitation activation reactivates it (document 2 D) and
// the unique key keeps two parallel activations from adding a second one.
teamMemberSchema.index({ team_id: 1, user_id: 1 }, { unique: true });
// The seat claim (docs/adr/0134): one row per seat number and team.
teamMemberSchema.index({ team_id: 1, seat: 1 }, { unique: true });

// Part of member summaries, which identity caches: every write announces (ADR 0191).
watchSummaryRows(teamMemberSchema, 'team_members');

export const teamMemberModel = (db: Connection): Model<TeamMemberRecord> =>
  db.models['TeamMember'] ?? db.model<TeamMemberRecord>('TeamMember', teamMemberSchema);
