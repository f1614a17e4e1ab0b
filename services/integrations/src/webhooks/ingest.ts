import { EVENT_STREAM, EVENT_SUBJECT_PREFIX, ensureEventStream, type DomainEvent } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { AckPolicy, DeliverPolicy, nanos, StringCodec, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { RETRY_WINDOW_MS } from './backoff.js';
import type { DeliveryRepository } from './delivery.repository.js';
import type { EndpointRepository } from './endpoint.repository.js';
import { isRoutedEvent, webhookOf } from './webhook-types.js';

const codec = StringCodec();
/** How long a failed recording waits before it is tried again (the database is away). */
const RECORD_RETRY_MS = 1_000;

/** `webhook-id` of an event: the same for every endpoint and every attempt. */
export const webhookIdOf = (eventId: string): string => `msg_${eventId.replace(/-/g, '')}`;

export interface IngestDeps {
  nats: NatsConnection;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  logger: Logger;
  /** The durable consumer's name: one per deployment (its database prefix names it). */
  durableName: string;
  ackWaitMs: number;
  streamReplicas: number;
  now: () => Date;
  /** Called after new deliveries were recorded, so that the dispatcher need not wait for its poll. */
  onRecorded: () => void;
}

/**
 * Reads the event stream with a durable consumer and records one delivery per subscribed endpoint
 * before acknowledging each message (see CONTEXT.md): a process that dies before the
 * acknowledgement gets the message again, and recording it again adds nothing.
 */
export class WebhookIngest {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;

  constructor(private readonly deps: IngestDeps) {}

  /** Records the deliveries of one event; answers how many are new. */
  async record(event: DomainEvent): Promise<number> {
    const hook = webhookOf(event);
    if (!hook || typeof event.resource_id !== 'number') return 0;
    const occurredAt = new Date(event.occurred_at);
    const endpoints = (await this.deps.endpoints.activeOfResource(event.resource_id)).filter(
      (endpoint) =>
        (endpoint.event_types.length === 0 || endpoint.event_types.includes(hook.type)) &&
        endpoint.created_at.getTime() <= occurredAt.getTime(),
    );
    if (endpoints.length === 0) return 0;
    // Standard Webhooks' recommended body: type, timestamp, data.
    const payload = JSON.stringify({
      type: hook.type,
      timestamp: event.occurred_at,
      data: { resource_id: event.resource_id, ...hook.data },
    });
    const now = this.deps.now();
    let recorded = 0;
    for (const endpoint of endpoints) {
      const created = await this.deps.deliveries.record({
        _id: `${endpoint._id}:${event.id}`,
        webhook_id: webhookIdOf(event.id),
        resource_id: event.resource_id,
        endpoint_id: endpoint._id,
        event_id: event.id,
        type: hook.type,
        payload,
        status: 'pending',
        attempts: 0,
        window_failures: 0,
        next_attempt_at: now,
        retry_until: new Date(now.getTime() + RETRY_WINDOW_MS),
        created_at: now,
        delivered_at: null,
        last_status_code: null,
        last_error: null,
      });
      if (created) recorded++;
    }
    return recorded;
  }

  /** Creates the durable consumer if needed (new events only: history is not replayed) and starts reading. */
  async start(): Promise<void> {
    const { nats, durableName, ackWaitMs, streamReplicas } = this.deps;
    await ensureEventStream(nats, streamReplicas);
    const manager = await nats.jetstreamManager();
    try {
      await manager.consumers.info(EVENT_STREAM, durableName);
      await manager.consumers.update(EVENT_STREAM, durableName, { ack_wait: nanos(ackWaitMs) });
    } catch {
      // Another replica may create it at the same moment: the same configuration is accepted.
      await manager.consumers.add(EVENT_STREAM, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        ack_wait: nanos(ackWaitMs),
        filter_subject: `${EVENT_SUBJECT_PREFIX}>`,
      });
    }
    const consumer = await nats.jetstream().consumers.get(EVENT_STREAM, durableName);
    const messages = await consumer.consume({ max_messages: 64 });
    this.messages = messages;
    this.loop = (async () => {
      for await (const message of messages) await this.handle(message);
    })().catch((error: unknown) => this.deps.logger.error({ err: error }, 'webhook ingest stopped'));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop;
  }

  /**
   * One message: events no endpoint can subscribe to are acknowledged unread; the others after
   * their deliveries are recorded. A recording that fails (the database is away) is retried in
   * place, so the messages after it wait and nothing is acknowledged out of turn.
   */
  private async handle(message: JsMsg): Promise<void> {
    if (!isRoutedEvent(message.subject.slice(EVENT_SUBJECT_PREFIX.length))) {
      message.ack();
      return;
    }
    let event: DomainEvent;
    try {
      event = JSON.parse(codec.decode(message.data)) as DomainEvent;
    } catch (error) {
      this.deps.logger.warn({ err: error, subject: message.subject }, 'unreadable event ignored by webhooks');
      message.term();
      return;
    }
    for (;;) {
      try {
        if ((await this.record(event)) > 0) this.deps.onRecorded();
        message.ack();
        return;
      } catch (error) {
        this.deps.logger.warn({ err: error, event_id: event.id }, 'webhook deliveries not recorded yet; retrying');
        // Keeps the message ours while the database is away; stopping leaves it for redelivery.
        message.working();
        if (this.stopping) return;
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }
}
