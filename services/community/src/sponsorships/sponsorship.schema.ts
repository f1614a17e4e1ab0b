import { Schema, type Connection, type Model } from 'mongoose';

/** A sponsorship (document 2 E's parent record): what a sponsor bought for others. */
export interface SponsorshipRecord {
  _id: number;
  resource_id: number;
  sponsor_id: number;
  /** The Pricing bought (the API's `subscription_id`). */
  pricing_id: number;
  /** Billing's key of the purchase: a repeated creation answers the first. */
  purchase_key: string;
  title: string;
  description: string;
  is_paying_by_sponsor: boolean;
  /** What the purchase asked for; the first associated membership's own flag wins once it exists. */
  autorenew: boolean;
  slot_count: number;
  seats_per_slot: number;
  created_at: Date;
  updated_at: Date;
}

const sponsorshipSchema = new Schema<SponsorshipRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    sponsor_id: { type: Number, required: true },
    pricing_id: { type: Number, required: true },
    purchase_key: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: '' },
    is_paying_by_sponsor: { type: Boolean, required: true },
    autorenew: { type: Boolean, required: true },
    slot_count: { type: Number, required: true },
    seats_per_slot: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'sponsorships', versionKey: false },
);
// One sponsorship per purchase, also under retries.
sponsorshipSchema.index({ purchase_key: 1 }, { unique: true });
// Serves GET /sponsor/sponsored-subscriptions: the sponsor's, newest first.
sponsorshipSchema.index({ resource_id: 1, sponsor_id: 1, created_at: -1 });

export const sponsorshipModel = (db: Connection): Model<SponsorshipRecord> =>
  db.models['Sponsorship'] ?? db.model<SponsorshipRecord>('Sponsorship', sponsorshipSchema);
