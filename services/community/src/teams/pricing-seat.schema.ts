import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One seat of a team Pricing with a positive `users_limit`, held by one relationship while it is
 * active and holds that Pricing (document 2 C: "positive users_limit counts active team Pricing
 * relationships"). The insert of `<team>:<pricing>:<seat>` is the claim (docs/adr/0233).
 */
export interface PricingSeatRecord {
  _id: string;
  team_id: number;
  pricing_id: number;
  user_id: number;
  /** Below the Pricing's users_limit. */
  seat: number;
  /** The invitation activation that claimed it, if one did: given back with it if its grant is refused. */
  activation_id: string | null;
  created_at: Date;
}

const pricingSeatSchema = new Schema<PricingSeatRecord>(
  {
    _id: { type: String, required: true },
    team_id: { type: Number, required: true },
    pricing_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    seat: { type: Number, required: true },
    activation_id: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'team_pricing_seats', versionKey: false },
);
// One seat of a Pricing per user and team; also serves the seat count of a Pricing in a team.
pricingSeatSchema.index({ team_id: 1, pricing_id: 1, user_id: 1 }, { unique: true });

export const pricingSeatModel = (db: Connection): Model<PricingSeatRecord> =>
  db.models['TeamPricingSeat'] ?? db.model<PricingSeatRecord>('TeamPricingSeat', pricingSeatSchema);
