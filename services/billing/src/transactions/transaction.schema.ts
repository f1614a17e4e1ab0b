import { Schema, type Connection, type Model } from 'mongoose';

/**
 * Where a transaction stands (docs/adr/0141). `pending`: recorded, payment not settled;
 * `requires_action`: the member must finish (3-D Secure); `succeeded`; `failed` (declined or
 * refused, nothing taken); `refunded` (all of it given back; a partial refund keeps `succeeded`
 * with `amount_refunded`).
 */
export const TRANSACTION_STATUSES = ['pending', 'requires_action', 'succeeded', 'failed', 'refunded'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** How the transaction came to be: a member's checkout, a renewal, or an external store's report. */
export type TransactionKind = 'checkout' | 'renewal' | 'external';

/** What one transaction bought: one item of one item type (docs/adr/0142). */
export interface PurchaseRecord {
  /** Public purchase ID (a counter of its own). */
  id: number;
  item_type: string;
  /** The item's own ID (a Pricing ID for `subscription`). */
  item_id: number;
  item_key: string;
  title: string;
  /** Minor units: the listed price, the promo's discount, and what is charged (price − discount). */
  price: number;
  discount: number;
  amount: number;
  currency: string;
  promo_code: string | null;
  /** What the fulfilment decided at purchase, for the grant (docs/adr/0142). */
  terms: Record<string, unknown>;
  /** What the fulfilment granted (a membership ID for `subscription`), once granted. */
  fulfilled_id: number | null;
  /**
   * Why the paid line can never be granted (`ti_event_tickets_sold_out`: its units went to others
   * while 3-D Secure ran late): its amount is refunded (docs/adr/0201). Absent on older records.
   */
  unfulfilled?: string | null;
  /**
   * Why what the line granted is taken back (`refunded`, `disputed`; docs/adr/0234): set before
   * anything is taken back, so no later fulfilment grants it; `revoked_at` once it was. Absent
   * on lines never refunded or disputed.
   */
  revoked?: string | null;
  revoked_at?: Date | null;
}

export interface RefundRecord {
  /** The provider's refund ID, or ours for an external refund. */
  id: string;
  amount: number;
  reason: string | null;
  created_at: Date;
}

export interface ReceiptRecord {
  /** `R-<resource>-<transaction>`: one receipt per transaction. */
  number: string;
  created_at: Date;
}

export interface DisputeRecord {
  id: string;
  /** The provider's dispute status (`needs_response`, `won`, `lost`…). */
  status: string;
  updated_at: Date;
}

export interface TransactionRecord {
  _id: number;
  resource_id: number;
  user_id: number;
  kind: TransactionKind;
  status: TransactionStatus;
  /** `cardprovider`, or `in-app` for external purchases (document 2 I). */
  pay_system: string;
  mode: 'test' | 'live';
  /** Minor units. */
  amount: number;
  amount_refunded: number;
  currency: string;
  purchases: PurchaseRecord[];
  refunds: RefundRecord[];
  receipt: ReceiptRecord | null;
  dispute: DisputeRecord | null;
  /** The saved source paid with (local IDs); null for external purchases and free checkouts. */
  payment_method_id: number | null;
  user_card_id: number | null;
  /** Card shown on the summary and the invoice. */
  card: { brand: string; last4: string } | null;
  /** The provider ID of the source charged (`pm_…` or `card_…`). */
  source_ref: string | null;
  /** Provider customer and payment (`pi_…`/`ch_…`) and its charge, once known. */
  customer_id: string | null;
  payment_id: string | null;
  charge_id: string | null;
  /** The provider's failure code and message of a failed payment. */
  error: string | null;
  error_message: string | null;
  /**
   * What makes this transaction unique: `<resource>:<user>:<Idempotency-Key or request ID>` for
   * a checkout, `renewal:<membership>:<period end>:<attempt>` for a renewal, `external:<resource>:<store
   * transaction>` for an external purchase. A retried or concurrent creation meets the index.
   */
  unique_key: string;
  /** A digest of what was asked (items and source): the same key with other items is refused. */
  fingerprint: string;
  /** External purchases: the store's transaction ID (document 2 I's `external_source_id`). */
  external_id: string | null;
  /** Shown on the invoice, as they were at purchase. */
  member_email: string;
  member_name: string;
  resource_title: string;
  created_at: Date;
  updated_at: Date;
}

const purchaseSchema = new Schema<PurchaseRecord>(
  {
    id: { type: Number, required: true },
    item_type: { type: String, required: true },
    item_id: { type: Number, required: true },
    item_key: { type: String, required: true },
    title: { type: String, default: '' },
    price: { type: Number, required: true },
    discount: { type: Number, required: true },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    promo_code: { type: String, default: null },
    terms: { type: Schema.Types.Mixed, default: {} },
    fulfilled_id: { type: Number, default: null },
    unfulfilled: { type: String, default: null },
    revoked: { type: String, default: null },
    revoked_at: { type: Date, default: null },
  },
  { _id: false },
);

const refundSchema = new Schema<RefundRecord>(
  { id: { type: String, required: true }, amount: Number, reason: { type: String, default: null }, created_at: Date },
  { _id: false },
);

const transactionSchema = new Schema<TransactionRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    kind: { type: String, required: true },
    status: { type: String, required: true },
    pay_system: { type: String, required: true },
    mode: { type: String, required: true },
    amount: { type: Number, required: true },
    amount_refunded: { type: Number, default: 0 },
    currency: { type: String, required: true },
    purchases: { type: [purchaseSchema], default: [] },
    refunds: { type: [refundSchema], default: [] },
    receipt: { type: new Schema({ number: String, created_at: Date }, { _id: false }), default: null },
    dispute: { type: new Schema({ id: String, status: String, updated_at: Date }, { _id: false }), default: null },
    payment_method_id: { type: Number, default: null },
    user_card_id: { type: Number, default: null },
    card: { type: new Schema({ brand: String, last4: String }, { _id: false }), default: null },
    source_ref: { type: String, default: null },
    customer_id: { type: String, default: null },
    payment_id: { type: String, default: null },
    charge_id: { type: String, default: null },
    error: { type: String, default: null },
    error_message: { type: String, default: null },
    unique_key: { type: String, required: true },
    fingerprint: { type: String, default: '' },
    external_id: { type: String, default: null },
    member_email: { type: String, default: '' },
    member_name: { type: String, default: '' },
    resource_title: { type: String, default: '' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'transactions', versionKey: false },
);
// One transaction per checkout request, renewal attempt or external purchase (see unique_key).
transactionSchema.index({ unique_key: 1 }, { unique: true });
// Serves the member's list in a resource (GET /user/transactions) and the grouped reads.
transactionSchema.index({ user_id: 1, resource_id: 1 });
// Serves webhooks: the transaction of a provider payment or charge.
transactionSchema.index({ payment_id: 1 });
transactionSchema.index({ charge_id: 1 });
// Serves GET /integrations/external/transaction (exact store transaction ID in a resource).
transactionSchema.index({ external_id: 1, resource_id: 1 });

export const transactionModel = (db: Connection): Model<TransactionRecord> =>
  db.models['Transaction'] ?? db.model<TransactionRecord>('Transaction', transactionSchema);
