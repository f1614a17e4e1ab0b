import { Schema, type Connection, type Model } from 'mongoose';

/** Card details shown in lists (document 1: payment_method.data). */
export interface CardDetails {
  card_brand: string;
  card_country: string;
  card_last4: string;
  /** `MM/YYYY` (docs/adr/0122). */
  expiration_date: string;
}

/** A saved provider payment method (document 1: "Saved method record"). */
export interface PaymentMethodRecord {
  _id: number;
  user_id: number;
  payment_customer_id: number;
  customer_id: string;
  pay_system: string;
  /** The provider's method ID (`pm_…`). */
  payment_method_id: string;
  mode: 'test' | 'live';
  type: string;
  data: CardDetails | null;
  /** The local card made for a card method; null otherwise. */
  card_id: number | null;
  /** `<user>:<payment_method_id>`: saving the same method again reuses this record. */
  method_key: string;
  created_at: Date;
}

/** A member's card (legacy sources, and the card of a saved card method). */
export interface UserCardRecord {
  _id: number;
  user_id: number;
  payment_customer_id: number;
  customer_id: string;
  pay_system: string;
  /** The provider's ID of the card (`card_…`) or of the method it came from (`pm_…`). */
  card_id: string;
  details: CardDetails;
  /** `<user>:<card_id>`: one local card per provider card. */
  card_key: string;
  created_at: Date;
}

/**
 * The member's default source with one provider: one document per (member, pay system), so there
 * is at most one default by construction, whatever the concurrency (docs/adr/0122).
 */
export interface DefaultSourceRecord {
  /** `<user>:<pay_system>`. */
  _id: string;
  source_type: 'payment-method' | 'user-card';
  source_id: number;
  updated_at: Date;
}

const details = new Schema<CardDetails>(
  {
    card_brand: { type: String, default: '' },
    card_country: { type: String, default: '' },
    card_last4: { type: String, default: '' },
    expiration_date: { type: String, default: '' },
  },
  { _id: false },
);

const paymentMethodSchema = new Schema<PaymentMethodRecord>(
  {
    _id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    payment_customer_id: { type: Number, required: true },
    customer_id: { type: String, required: true },
    pay_system: { type: String, required: true },
    payment_method_id: { type: String, required: true },
    mode: { type: String, required: true },
    type: { type: String, required: true },
    data: { type: details, default: null },
    card_id: { type: Number, default: null },
    method_key: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'payment_methods', versionKey: false },
);
// One record per (member, provider method): a retried save finds it.
paymentMethodSchema.index({ method_key: 1 }, { unique: true });
// Serves the source list: the methods of the member's visible customers.
paymentMethodSchema.index({ user_id: 1, payment_customer_id: 1 });

const userCardSchema = new Schema<UserCardRecord>(
  {
    _id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    payment_customer_id: { type: Number, required: true },
    customer_id: { type: String, required: true },
    pay_system: { type: String, required: true },
    card_id: { type: String, required: true },
    details: { type: details, required: true },
    card_key: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'user_cards', versionKey: false },
);
// One local card per (member, provider card).
userCardSchema.index({ card_key: 1 }, { unique: true });
// Serves the source list: the cards of the member's visible customers.
userCardSchema.index({ user_id: 1, payment_customer_id: 1 });

const defaultSourceSchema = new Schema<DefaultSourceRecord>(
  {
    _id: { type: String, required: true },
    source_type: { type: String, required: true },
    source_id: { type: Number, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'default_sources', versionKey: false },
);

export const paymentMethodModel = (db: Connection): Model<PaymentMethodRecord> =>
  db.models['PaymentMethod'] ?? db.model<PaymentMethodRecord>('PaymentMethod', paymentMethodSchema);
export const userCardModel = (db: Connection): Model<UserCardRecord> =>
  db.models['UserCard'] ?? db.model<UserCardRecord>('UserCard', userCardSchema);
export const defaultSourceModel = (db: Connection): Model<DefaultSourceRecord> =>
  db.models['DefaultSource'] ?? db.model<DefaultSourceRecord>('DefaultSource', defaultSourceSchema);
