import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A promo code of one resource (docs/adr/0144): `percent` off (1–100) or a fixed `amount` off in
 * `currency`'s minor units, usable `max_uses` times in all (0: no limit) between `valid_from` and
 * `valid_until` (null: open), optionally only for some Pricings.
 */
export interface PromoCodeRecord {
  _id: number;
  resource_id: number;
  /** As the operator wrote it; matched case-insensitively through `code_key`. */
  code: string;
  /** `<resource>:<CODE>`: unique per resource. */
  code_key: string;
  discount_type: 'percent' | 'amount';
  discount_value: number;
  /** For `amount`; null for `percent`. */
  currency: string | null;
  max_uses: number;
  valid_from: Date | null;
  valid_until: Date | null;
  /** Empty: every Pricing. */
  pricing_ids: number[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * One use of a limited promo code: `_id` `<promo>:<slot>`, slot 0…max_uses−1, claimed by a
 * unique insert so that no two checkouts take the same use (FerretDB loses concurrent `$inc`,
 * ADR 0002). `claim_key` is the checkout that holds it; a failed checkout deletes it.
 */
export interface PromoRedemptionRecord {
  _id: string;
  promo_id: number;
  claim_key: string;
  created_at: Date;
  /** Set once its checkout's transaction was seen recorded: the use is not given back (ADR 0220). */
  confirmed?: boolean;
}

const promoSchema = new Schema<PromoCodeRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    code: { type: String, required: true },
    code_key: { type: String, required: true },
    discount_type: { type: String, required: true },
    discount_value: { type: Number, required: true },
    currency: { type: String, default: null },
    max_uses: { type: Number, default: 0 },
    valid_from: { type: Date, default: null },
    valid_until: { type: Date, default: null },
    pricing_ids: { type: [Number], default: [] },
    active: { type: Boolean, default: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'promo_codes', versionKey: false },
);
// Serves checkout's lookup of a code in a resource, and keeps codes unique there.
promoSchema.index({ code_key: 1 }, { unique: true });
// Serves the operator's list of a resource's codes.
promoSchema.index({ resource_id: 1 });

const redemptionSchema = new Schema<PromoRedemptionRecord>(
  {
    _id: { type: String, required: true },
    promo_id: { type: Number, required: true },
    claim_key: { type: String, required: true },
    created_at: { type: Date, required: true },
    confirmed: { type: Boolean },
  },
  { collection: 'promo_redemptions', versionKey: false },
);
// Serves the uses count of a code and a checkout's own claim (retries reuse it).
redemptionSchema.index({ promo_id: 1, claim_key: 1 });

/**
 * How one use (one claim of a slot: `<use _id>@<claimed at ms>`, a slot is claimed again once
 * given back) ended its doubt (docs/adr/0235): `kept` by its checkout once its transaction is
 * recorded, or `given_back` by the abandoned-use sweep. A unique insert: exactly one of them wins.
 */
export interface PromoUseFateRecord {
  _id: string;
  fate: 'kept' | 'given_back';
  created_at: Date;
}

const useFateSchema = new Schema<PromoUseFateRecord>(
  {
    _id: { type: String, required: true },
    fate: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'promo_use_fates', versionKey: false },
);

export const promoUseFateModel = (db: Connection): Model<PromoUseFateRecord> =>
  db.models['PromoUseFate'] ?? db.model<PromoUseFateRecord>('PromoUseFate', useFateSchema);

export const promoCodeModel = (db: Connection): Model<PromoCodeRecord> =>
  db.models['PromoCode'] ?? db.model<PromoCodeRecord>('PromoCode', promoSchema);
export const promoRedemptionModel = (db: Connection): Model<PromoRedemptionRecord> =>
  db.models['PromoRedemption'] ?? db.model<PromoRedemptionRecord>('PromoRedemption', redemptionSchema);
