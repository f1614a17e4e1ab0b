import { eventOf, keepStarting, startDurableConsumer, type DurableConsumer, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { JsMsg } from 'nats';
import type { RenewalService } from './renewal.service.js';

const EVENT = 'sponsor_slot_activated';
/** A tracking that failed (a peer or the database away) is tried again after this long (redelivery). */
const RETRY_DELAY_MS = 5_000;
/** How long a failed start (JetStream not ready) waits before the next try. */
const START_RETRY_MS = 2_000;

interface Deps {
  nats: NatsLink;
  renewals: RenewalService;
  logger: Logger;
  /** Names the durable consumer: one per deployment (its database prefix), shared by the replicas. */
  durablePrefix: string;
  streamReplicas: number;
}

/**
 * Reads `sponsor_slot_activated` with a durable consumer shared by billing's replicas, so that a
 * gift billing sold starts renewing once its recipient holds the membership (docs/adr/0158). A
 * message is acknowledged after its record is tracked; one billing was down for is read when it
 * is back, and a repeat tracks nothing new.
 */
export class SponsoredActivations {
  private consumer: DurableConsumer | null = null;
  private stopped = false;

  constructor(private readonly deps: Deps) {}

  /** Starts in the background: billing serves while NATS or JetStream is still coming up. */
  start(): void {
    const start = async () => {
      const consumer = await startDurableConsumer({
        nats: this.deps.nats,
        durable: `${this.deps.durablePrefix}billing_${EVENT}`,
        eventName: EVENT,
        streamReplicas: this.deps.streamReplicas,
        maxMessages: 16,
        // A gift activated before billing's first start is tracked too; a repeat tracks nothing new.
        fromStreamStart: true,
        logger: this.deps.logger,
        handle: (message) => this.handle(message),
      });
      // A start that NATS held up past `stop` ends at once.
      if (this.stopped) await consumer.stop();
      else this.consumer = consumer;
    };
    void keepStarting(start, {
      retryMs: START_RETRY_MS,
      logger: this.deps.logger,
      what: 'sponsored activations',
      stopped: () => this.stopped,
    });
  }

  async stop(): Promise<void> {
    // Not waiting for a start still held up by NATS: it stops its consumer itself.
    this.stopped = true;
    await this.consumer?.stop();
  }

  private async handle(message: JsMsg): Promise<void> {
    const event = eventOf<typeof EVENT>(message, this.deps.logger);
    if (!event) return;
    try {
      if (typeof event.resource_id === 'number') await this.deps.renewals.trackSponsored(event.resource_id, event.payload.membership_id);
      message.ack();
    } catch (error) {
      this.deps.logger.warn({ err: error, event_id: event.id }, 'sponsored membership not tracked yet; redelivered later');
      message.nak(RETRY_DELAY_MS);
    }
  }
}
