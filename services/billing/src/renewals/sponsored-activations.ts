import { EVENT_STREAM, EVENT_SUBJECT_PREFIX, ensureEventStream, type DomainEvent } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { AckPolicy, DeliverPolicy, StringCodec, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import type { RenewalService } from './renewal.service.js';

const codec = StringCodec();
const EVENT = 'sponsor_slot_activated';
/** A tracking that failed (a peer or the database away) is tried again after this long (redelivery). */
const RETRY_DELAY_MS = 5_000;

interface Deps {
  nats: NatsConnection;
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
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly deps: Deps) {}

  async start(): Promise<void> {
    await ensureEventStream(this.deps.nats, this.deps.streamReplicas);
    const durable = `${this.deps.durablePrefix}billing_${EVENT}`;
    const manager = await this.deps.nats.jetstreamManager();
    try {
      await manager.consumers.info(EVENT_STREAM, durable);
    } catch {
      // Another replica may create it at the same moment: the same configuration is accepted.
      await manager.consumers.add(EVENT_STREAM, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        filter_subject: `${EVENT_SUBJECT_PREFIX}${EVENT}`,
      });
    }
    const consumer = await this.deps.nats.jetstream().consumers.get(EVENT_STREAM, durable);
    const messages = await consumer.consume({ max_messages: 16 });
    this.messages = messages;
    this.loop = (async () => {
      for await (const message of messages) await this.handle(message);
    })().catch((error: unknown) => this.deps.logger.error({ err: error }, 'sponsored activations stopped'));
  }

  async stop(): Promise<void> {
    await this.messages?.close().catch(() => undefined);
    await this.loop;
  }

  private async handle(message: JsMsg): Promise<void> {
    let event: DomainEvent<typeof EVENT>;
    try {
      event = JSON.parse(codec.decode(message.data)) as DomainEvent<typeof EVENT>;
    } catch (error) {
      this.deps.logger.warn({ err: error, subject: message.subject }, 'unreadable event ignored by renewals');
      message.term();
      return;
    }
    try {
      if (typeof event.resource_id === 'number') await this.deps.renewals.trackSponsored(event.resource_id, event.payload.membership_id);
      message.ack();
    } catch (error) {
      this.deps.logger.warn({ err: error, event_id: event.id }, 'sponsored membership not tracked yet; redelivered later');
      message.nak(RETRY_DELAY_MS);
    }
  }
}
