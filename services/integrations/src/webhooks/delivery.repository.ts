import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, FilterQuery, Model } from 'mongoose';
import {
  attemptModel,
  deliveryModel,
  type AttemptOutcome,
  type DeliveryStatus,
  type WebhookAttemptRecord,
  type WebhookDeliveryRecord,
} from './delivery.schema.js';

/** What one finished (or abandoned) attempt changes on its delivery. */
export interface AttemptResult {
  outcome: Exclude<AttemptOutcome, 'sending'>;
  statusCode: number | null;
  error: string | null;
  /** The delivery's state after it. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  windowFailures: number;
}

/** Storage of deliveries and their attempts (the delivery log). Plain objects. */
export class DeliveryRepository {
  private readonly deliveries: Model<WebhookDeliveryRecord>;
  private readonly attempts: Model<WebhookAttemptRecord>;

  constructor(db: Connection) {
    this.deliveries = deliveryModel(db);
    this.attempts = attemptModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.deliveries.createIndexes(), this.attempts.createIndexes()]);
  }

  /** True when recorded now, false when this event already has its delivery to the endpoint. */
  record(delivery: WebhookDeliveryRecord): Promise<boolean> {
    return insertIfAbsent(this.deliveries.create(delivery));
  }

  /** Pending deliveries due at `now`, the longest waiting first. */
  due(now: Date, limit: number): Promise<WebhookDeliveryRecord[]> {
    return this.deliveries
      .find({ status: 'pending', next_attempt_at: { $lte: now } })
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .lean<WebhookDeliveryRecord[]>()
      .exec();
  }

  /** Claims attempt `attempt` of the delivery: true for the one process whose insert went in. */
  claim(delivery: WebhookDeliveryRecord, attempt: number, sender: string, now: Date, leaseUntil: Date): Promise<boolean> {
    return insertIfAbsent(
      this.attempts.create({
        _id: `${delivery._id}#${attempt}`,
        delivery_id: delivery._id,
        endpoint_id: delivery.endpoint_id,
        attempt,
        outcome: 'sending',
        sender,
        started_at: now,
        lease_until: leaseUntil,
        finished_at: null,
        status_code: null,
        error: null,
      }),
    );
  }

  findAttempt(deliveryId: string, attempt: number): Promise<WebhookAttemptRecord | null> {
    return this.attempts.findById(`${deliveryId}#${attempt}`).lean<WebhookAttemptRecord>().exec();
  }

  /**
   * Writes the attempt's outcome (only while it is still `sending`: an abandoned attempt stays
   * abandoned) and moves the delivery past it, only if the delivery has not moved already
   * (another process that abandoned it, a replay). True when the delivery moved.
   */
  async finish(delivery: WebhookDeliveryRecord, attempt: number, now: Date, result: AttemptResult): Promise<boolean> {
    await this.attempts
      .updateOne(
        { _id: `${delivery._id}#${attempt}`, outcome: 'sending' },
        { $set: { outcome: result.outcome, finished_at: now, status_code: result.statusCode, error: result.error } },
      )
      .exec();
    const { modifiedCount } = await this.deliveries
      .updateOne(
        { _id: delivery._id, attempts: attempt - 1 },
        {
          $set: {
            attempts: attempt,
            status: result.status,
            next_attempt_at: result.nextAttemptAt,
            window_failures: result.windowFailures,
            last_status_code: result.statusCode,
            last_error: result.error,
            ...(result.status === 'delivered' ? { delivered_at: now } : {}),
          },
        },
      )
      .exec();
    return modifiedCount === 1;
  }

  /** The endpoint's deliveries, newest first, with their attempts in order. */
  async log(
    resourceId: number,
    endpointId: number,
    status: DeliveryStatus | null,
    limit: number,
  ): Promise<Array<WebhookDeliveryRecord & { attempt_log: WebhookAttemptRecord[] }>> {
    const filter: FilterQuery<WebhookDeliveryRecord> = { resource_id: resourceId, endpoint_id: endpointId };
    if (status) filter.status = status;
    const deliveries = await this.deliveries.find(filter).sort({ created_at: -1 }).limit(limit).lean<WebhookDeliveryRecord[]>().exec();
    const attempts = deliveries.length
      ? await this.attempts
          .find({ delivery_id: { $in: deliveries.map((delivery) => delivery._id) } })
          .lean<WebhookAttemptRecord[]>()
          .exec()
      : [];
    return deliveries.map((delivery) => ({
      ...delivery,
      attempt_log: attempts.filter((attempt) => attempt.delivery_id === delivery._id).sort((a, b) => a.attempt - b.attempt),
    }));
  }

  /**
   * Puts the endpoint's matching deliveries that are not pending back in line, due now, with a
   * new window; answers how many.
   */
  async replay(
    resourceId: number,
    endpointId: number,
    selection: { ids: string[] } | { status: DeliveryStatus | null; since: Date | null },
    now: Date,
    retryUntil: Date,
  ): Promise<number> {
    const filter: FilterQuery<WebhookDeliveryRecord> = { resource_id: resourceId, endpoint_id: endpointId };
    if ('ids' in selection) filter._id = { $in: selection.ids };
    else {
      if (selection.status) filter.status = selection.status;
      if (selection.since) filter.created_at = { $gte: selection.since };
    }
    const candidates = await this.deliveries.find(filter, { _id: 1, status: 1 }).lean<WebhookDeliveryRecord[]>().exec();
    let replayed = 0;
    for (const { _id, status } of candidates) {
      if (status === 'pending') continue;
      const { modifiedCount } = await this.deliveries
        .updateOne(
          { _id, status },
          { $set: { status: 'pending', next_attempt_at: now, retry_until: retryUntil, window_failures: 0, delivered_at: null } },
        )
        .exec();
      replayed += modifiedCount;
    }
    return replayed;
  }
}
