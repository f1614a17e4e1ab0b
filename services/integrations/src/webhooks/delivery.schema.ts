import { Schema, type Connection, type Model } from 'mongoose';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint. `_id` is `<endpoint id>:<event id>`: one per pair by construction. */
export interface WebhookDeliveryRecord {
  _id: string;
  /** `webhook-id`: the same for every endpoint and every attempt of the event. */
  webhook_id: string;
  resource_id: number;
  endpoint_id: number;
  event_id: string;
  type: string;
  /** The body, fixed at creation: every attempt sends the same bytes. */
  payload: string;
  status: DeliveryStatus;
  /** Attempts ever claimed (their log is in webhook_attempts). */
  attempts: number;
  /** Failed attempts since the window started (creation or replay): the backoff's exponent. */
  window_failures: number;
  next_attempt_at: Date | null;
  retry_until: Date;
  created_at: Date;
  delivered_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

const deliverySchema = new Schema<WebhookDeliveryRecord>(
  {
    _id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    endpoint_id: { type: Number, required: true },
    event_id: { type: String, required: true },
    type: { type: String, required: true },
    payload: { type: String, required: true },
    status: { type: String, required: true },
    attempts: { type: Number, required: true },
    window_failures: { type: Number, required: true },
    next_attempt_at: { type: Date, default: null },
    retry_until: { type: Date, required: true },
    created_at: { type: Date, required: true },
    delivered_at: { type: Date, default: null },
    last_status_code: { type: Number, default: null },
    last_error: { type: String, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false },
);
// Serves the dispatcher's scan for due deliveries (off any request path, bounded by its batch).
deliverySchema.index({ status: 1, next_attempt_at: 1 });
// Serves the operator's delivery log of one endpoint, newest first.
deliverySchema.index({ resource_id: 1, endpoint_id: 1, created_at: -1 });

export const deliveryModel = (db: Connection): Model<WebhookDeliveryRecord> =>
  db.models['WebhookDelivery'] ?? db.model<WebhookDeliveryRecord>('WebhookDelivery', deliverySchema);

export type AttemptOutcome = 'sending' | 'succeeded' | 'failed' | 'abandoned';

/**
 * One HTTP request of a delivery. `_id` is `<delivery id>#<attempt>`: inserting it is the claim
 * on that attempt, so two processes never send the same attempt (ADR 0002's unique claims).
 */
export interface WebhookAttemptRecord {
  _id: string;
  delivery_id: string;
  endpoint_id: number;
  attempt: number;
  outcome: AttemptOutcome;
  /** Who sent it (host:pid), for the operator reading a log after a crash. */
  sender: string;
  started_at: Date;
  /** Until then the claim is the sender's; after it another process may declare it abandoned. */
  lease_until: Date;
  finished_at: Date | null;
  status_code: number | null;
  error: string | null;
}

const attemptSchema = new Schema<WebhookAttemptRecord>(
  {
    _id: { type: String, required: true },
    delivery_id: { type: String, required: true },
    endpoint_id: { type: Number, required: true },
    attempt: { type: Number, required: true },
    outcome: { type: String, required: true },
    sender: { type: String, required: true },
    started_at: { type: Date, required: true },
    lease_until: { type: Date, required: true },
    finished_at: { type: Date, default: null },
    status_code: { type: Number, default: null },
    error: { type: String, default: null },
  },
  { collection: 'webhook_attempts', versionKey: false },
);
// Serves the delivery log: the attempts of the listed deliveries.
attemptSchema.index({ delivery_id: 1 });

export const attemptModel = (db: Connection): Model<WebhookAttemptRecord> =>
  db.models['WebhookAttempt'] ?? db.model<WebhookAttemptRecord>('WebhookAttempt', attemptSchema);
