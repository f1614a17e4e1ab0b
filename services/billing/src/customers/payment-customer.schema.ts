import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A member's customer on a payment provider, as billing knows it. It lives in the provider account
 * of `resource_id` (that resource's secret key, in `mode`) and is visible in the resources of
 * `resource_ids` (attachments; document 1 D: "member-owned customers attached to the resource").
 */
export interface PaymentCustomerRecord {
  _id: number;
  user_id: number;
  resource_id: number;
  resource_ids: number[];
  pay_system: string;
  /** The provider's customer ID (`cus_…`). */
  customer_id: string;
  mode: 'test' | 'live';
  /** `modern` (read-or-create, save-intents) or `legacy` (created from a provider token). */
  kind: 'modern' | 'legacy';
  /**
   * What makes this record unique: the idempotency key of the provider write that created it, or
   * `<user>:<pay_system>:<customer_id>` for a customer adopted by save-intents. A retried or
   * concurrent creation meets the unique index instead of adding a second record.
   */
  customer_key: string;
  created_at: Date;
}

const paymentCustomerSchema = new Schema<PaymentCustomerRecord>(
  {
    _id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    resource_ids: { type: [Number], required: true },
    pay_system: { type: String, required: true },
    customer_id: { type: String, required: true },
    mode: { type: String, required: true },
    kind: { type: String, required: true },
    customer_key: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'payment_customers', versionKey: false },
);
// At most one record per creation (see customer_key); serves the read-after-duplicate.
paymentCustomerSchema.index({ customer_key: 1 }, { unique: true });
// Serves the member's customers visible in a resource (lists, setup-intents, HasPaymentCustomer).
paymentCustomerSchema.index({ user_id: 1, resource_ids: 1 });

export const paymentCustomerModel = (db: Connection): Model<PaymentCustomerRecord> =>
  db.models['PaymentCustomer'] ?? db.model<PaymentCustomerRecord>('PaymentCustomer', paymentCustomerSchema);
