import { Schema, type Connection, type Model } from 'mongoose';

/**
 * What a Pricing sells (docs/adr/0140): `standard` memberships bought for oneself (the default),
 * `gift` memberships bought for someone else, `team` seats and `event_pass` tickets. Clients list
 * the ordinary ones with `filter={"subscriptions.type":"standard"}`.
 */
export const PRICING_TYPES = ['standard', 'gift', 'team', 'event_pass'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];

export interface PricingRecord {
  _id: number;
  plan_id: number;
  /** Copied from the plan so that every read can be scoped to the resource. */
  resource_id: number;
  title: string;
  /** Integer in the currency's minor unit; never a float (DESIGN.md "Money"). */
  price: number;
  currency: string;
  /** "N day(s)/week(s)/month(s)/year(s)", see period.ts. */
  period: string;
  active: boolean;
  private: boolean;
  /** Comma-separated external product IDs, kept as one string because the API returns it so. */
  external_source_ids: string;
  users_limit: number | null;
  country_vat: string | null;
  type: PricingType;
  created_at: Date;
  updated_at: Date;
}

const pricingSchema = new Schema<PricingRecord>(
  {
    _id: { type: Number, required: true },
    plan_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    title: { type: String, required: true },
    price: { type: Number, required: true },
    currency: { type: String, required: true },
    period: { type: String, required: true },
    active: { type: Boolean, required: true },
    private: { type: Boolean, required: true },
    external_source_ids: { type: String, default: '' },
    users_limit: { type: Number, default: null },
    country_vat: { type: String, default: null },
    type: { type: String, enum: PRICING_TYPES, default: 'standard' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'pricings', versionKey: false },
);
// Serves UpsertPricing (plan + title → pricing) and keeps titles unique within a plan.
pricingSchema.index({ plan_id: 1, title: 1 }, { unique: true });
// Serves the subscriptions of a page of plans (plan_id $in, active) and pricing lookups by resource.
pricingSchema.index({ resource_id: 1, plan_id: 1, active: 1 });

export const pricingModel = (db: Connection): Model<PricingRecord> =>
  db.models['Pricing'] ?? db.model<PricingRecord>('Pricing', pricingSchema);
