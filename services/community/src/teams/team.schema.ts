import { Schema, type Connection, type Model } from 'mongoose';
import { watchSummaryRows } from '../members/summary-changes.js';

/** A team. It has no resource_id: document 2 C says so, and team lookups have no resource filter. */
export interface TeamRecord {
  _id: number;
  name: string;
  description?: string | null;
  owner_id: number;
  active: boolean;
  /** Seat cap counting every relationship, inactive included; 0 = no cap (document 2 C). */
  member_limit: number;
  /** Email domain patterns an invitee must match (`example.com`, `*.example.com`); empty = any. */
  allowed_domains?: string[];
  created_at: Date;
  updated_at?: Date;
}

const teamSchema = new Schema<TeamRecord>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    owner_id: { type: Number, required: true },
    active: { type: Boolean, required: true },
    member_limit: { type: Number, required: true, default: 0 },
    allowed_domains: { type: [String], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date },
  },
  { collection: 'teams', versionKey: false },
);

// Part of member summaries, which identity caches: every write announces (ADR 0191).
watchSummaryRows(teamSchema, 'teams');

export const teamModel = (db: Connection): Model<TeamRecord> => db.models['Team'] ?? db.model<TeamRecord>('Team', teamSchema);
