import { Schema, type Connection, type Model } from 'mongoose';

export interface PlanRecord {
  _id: number;
  resource_id: number;
  slug: string;
  title: string;
  active: boolean;
  private: boolean;
  full_access: boolean;
  /** The plan this one is a child of (team seats under a team plan); null for none. */
  parent_plan_id: number | null;
  /** A membership of this plan lets a member own teams (a "team plan"). */
  can_own_teams: boolean;
  created_at: Date;
  updated_at: Date;
}

const planSchema = new Schema<PlanRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    slug: { type: String, required: true },
    title: { type: String, required: true },
    active: { type: Boolean, required: true },
    private: { type: Boolean, required: true },
    full_access: { type: Boolean, required: true },
    parent_plan_id: { type: Number, default: null },
    can_own_teams: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'plans', versionKey: false },
);
// Serves UpsertPlan (resource + slug → plan) and keeps slugs unique within a resource.
planSchema.index({ resource_id: 1, slug: 1 }, { unique: true });
// Serves ListPlans: a resource's active public plans in the default order (created_at DESC).
planSchema.index({ resource_id: 1, active: 1, private: 1, created_at: -1 });
// Serves ListTeamPlans: the active children of a resource's team plans.
planSchema.index({ resource_id: 1, parent_plan_id: 1, active: 1 });

export const planModel = (db: Connection): Model<PlanRecord> => db.models['Plan'] ?? db.model<PlanRecord>('Plan', planSchema);
