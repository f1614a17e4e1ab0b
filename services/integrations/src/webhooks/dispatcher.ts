import { hostname } from 'node:os';
import type { Logger } from '@masthead/core/logging';
import { open, SecretUnavailable, type KeyRing } from '@masthead/core/secrets';
import { nextAttemptAt } from './backoff.js';
import type { AttemptResult, DeliveryRepository } from './delivery.repository.js';
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from './delivery.schema.js';
import type { EndpointRepository } from './endpoint.repository.js';
import type { WebhookEndpointRecord } from './endpoint.schema.js';
import type { SendResult, WebhookSender } from './sender.js';
import { mapLimit } from '../support/map-limit.js';

/** Binds an endpoint's sealed secret to its resource (docs/adr/0171). */
export const endpointSecretAad = (resourceId: number): string => `webhook-endpoint:${resourceId}`;

export interface DispatcherDeps {
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  /** Null when no ring is configured: every attempt fails (and is retried) until one is. */
  ring: KeyRing | null;
  send: WebhookSender;
  /** The clock of schedules, leases and signatures (tests move it instead of sleeping). */
  now: () => Date;
  leaseMs: number;
  concurrency: number;
  logger: Logger;
}

const ABANDONED = 'the sender stopped before recording an answer';

/**
 * Sends due deliveries (see CONTEXT.md). Each attempt is claimed by a unique insert before the
 * request and recorded after the answer; an attempt whose sender died is declared abandoned once
 * its lease has run out and the delivery is sent again, with the same `webhook-id`.
 */
export class WebhookDispatcher {
  private readonly sender = `${hostname()}:${process.pid}`;
  private running: Promise<number> | null = null;
  private again = false;

  constructor(private readonly deps: DispatcherDeps) {}

  /**
   * One pass over what is due now, at most `concurrency` requests at a time; answers how many
   * attempts it made. Passes do not overlap: a call during a pass runs one more pass after it.
   */
  deliverDue(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass()
      .finally(() => {
        this.running = null;
      })
      .then(async (made) => {
        if (!this.again) return made;
        this.again = false;
        return made + (await this.deliverDue());
      });
    return this.running;
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    await this.running?.catch(() => 0);
  }

  private async pass(): Promise<number> {
    const { deliveries, concurrency, now } = this.deps;
    let made = 0;
    for (;;) {
      const due = await deliveries.due(now(), concurrency * 4);
      const outcomes = await mapLimit(due, concurrency, (delivery) => this.attempt(delivery));
      made += outcomes.filter(Boolean).length;
      // A short batch was everything due; a full one may have left more behind.
      if (due.length < concurrency * 4 || outcomes.every((sent) => !sent)) return made;
    }
  }

  /** True when this process sent the attempt. */
  private async attempt(delivery: WebhookDeliveryRecord): Promise<boolean> {
    const { deliveries, endpoints, now, leaseMs } = this.deps;
    const attempt = delivery.attempts + 1;
    const startedAt = now();
    if (!(await deliveries.claim(delivery, attempt, this.sender, startedAt, new Date(startedAt.getTime() + leaseMs)))) {
      return this.settleClaimed(delivery, attempt);
    }
    const endpoint = await endpoints.find(delivery.resource_id, delivery.endpoint_id);
    const result = endpoint?.active
      ? await this.send(endpoint, delivery, startedAt)
      : { ok: false, statusCode: null, error: 'endpoint paused or removed' };
    const finishedAt = now();
    // A paused endpoint's delivery fails at once; the operator replays it after resuming.
    await deliveries.finish(
      delivery,
      attempt,
      finishedAt,
      endpoint?.active ? this.decide(delivery, result, finishedAt) : failed(delivery, result),
    );
    return true;
  }

  private async send(endpoint: WebhookEndpointRecord, delivery: WebhookDeliveryRecord, timestamp: Date): Promise<SendResult> {
    let secret: string;
    try {
      if (!this.deps.ring) throw new SecretUnavailable('INTEGRATIONS_SECRETS_KEYS is not configured');
      secret = open(this.deps.ring, endpoint.secret, endpointSecretAad(endpoint.resource_id));
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      this.deps.logger.error({ endpointId: endpoint._id, keyId: endpoint.secret.key_id }, error.message);
      return { ok: false, statusCode: null, error: 'signing secret unavailable' };
    }
    return this.deps.send({ url: endpoint.url, secret, webhookId: delivery.webhook_id, timestamp, payload: delivery.payload });
  }

  /** What an answer makes of the delivery: delivered, retried after the backoff, or failed past its window. */
  private decide(delivery: WebhookDeliveryRecord, result: SendResult, at: Date): AttemptResult {
    if (result.ok) {
      return {
        outcome: 'succeeded',
        statusCode: result.statusCode,
        error: null,
        status: 'delivered',
        nextAttemptAt: null,
        windowFailures: delivery.window_failures,
      };
    }
    const failures = delivery.window_failures + 1;
    const next = nextAttemptAt(at, failures, delivery.retry_until);
    return { ...failed(delivery, result), status: next ? 'pending' : 'failed', nextAttemptAt: next, windowFailures: failures };
  }

  /**
   * The attempt was claimed already. Its sender may still hold it (nothing to do), may have died
   * (the lease ran out: abandoned, sent again at once), or may have recorded the answer but not
   * moved the delivery (a crash between the two writes: move it now).
   */
  private async settleClaimed(delivery: WebhookDeliveryRecord, attempt: number): Promise<boolean> {
    const claimed: WebhookAttemptRecord | null = await this.deps.deliveries.findAttempt(delivery._id, attempt);
    const now = this.deps.now();
    if (!claimed) return false;
    if (claimed.outcome === 'sending' && claimed.lease_until.getTime() > now.getTime()) return false;
    if (claimed.outcome === 'sending' || claimed.outcome === 'abandoned') {
      this.deps.logger.warn(
        { deliveryId: delivery._id, attempt, sender: claimed.sender },
        'webhook attempt abandoned by its sender; sending again',
      );
      const moved = await this.deps.deliveries.finish(delivery, attempt, now, {
        outcome: 'abandoned',
        statusCode: null,
        error: ABANDONED,
        status: 'pending',
        nextAttemptAt: now,
        windowFailures: delivery.window_failures,
      });
      // Its next attempt at once (the answer to the abandoned one is unknown), unless another process moved it first.
      return moved ? this.attempt({ ...delivery, attempts: attempt }) : false;
    }
    const result: SendResult = { ok: claimed.outcome === 'succeeded', statusCode: claimed.status_code, error: claimed.error };
    await this.deps.deliveries.finish(delivery, attempt, now, this.decide(delivery, result, claimed.finished_at ?? now));
    return false;
  }
}

const failed = (delivery: WebhookDeliveryRecord, result: SendResult): AttemptResult => ({
  outcome: 'failed',
  statusCode: result.statusCode,
  error: result.error,
  status: 'failed',
  nextAttemptAt: null,
  windowFailures: delivery.window_failures + 1,
});
