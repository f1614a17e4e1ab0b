import { eventOf, startDurableConsumer, type DomainEvent, type DurableConsumer, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { JsMsg } from 'nats';
import { RETRY_WINDOW_MS } from './backoff.js';
import type { DeliveryRepository } from './delivery.repository.js';
import type { EndpointRepository } from './endpoint.repository.js';
import { ROUTED_EVENTS, webhookOf } from './webhook-types.js';

/** How long a failed recording waits before it is tried again (the database is away). */
const RECORD_RETRY_MS = 1_000;

/** The durable consumer of one event name (consumer names allow letters, digits, - and _). */
export const ingestConsumerName = (prefix: string, eventName: string): string => `${prefix}webhooks_${eventName}`;

/** `webhook-id` of an event: the same for every endpoint and every attempt. */
export const webhookIdOf = (eventId: string): string => `msg_${eventId.replace(/-/g, '')}`;

export interface IngestDeps {
  /** Possibly still connecting: the process starts while NATS is down (docs/adr/0182). */
  nats: NatsLink;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  logger: Logger;
  /** Starts the durable consumers' names: one set per deployment (its database prefix names it). */
  durablePrefix: string;
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
  private readonly consumers: DurableConsumer[] = [];
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

  /**
   * Starts one durable consumer per event name an endpoint can subscribe to, so the stream never
   * hands this process the events no webhook carries (page views above all).
   */
  async start(): Promise<void> {
    for (const name of ROUTED_EVENTS) {
      const consumer = await startDurableConsumer({
        nats: this.deps.nats,
        durable: ingestConsumerName(this.deps.durablePrefix, name),
        eventName: name,
        streamReplicas: this.deps.streamReplicas,
        ackWaitMs: this.deps.ackWaitMs,
        maxMessages: 64,
        logger: this.deps.logger,
        handle: (message) => this.handle(message),
      });
      // A start that NATS held up past `stop` ends at once.
      if (this.stopping) return consumer.stop();
      this.consumers.push(consumer);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
  }

  /**
   * One message, acknowledged after its deliveries are recorded. A recording that fails (the database is away) is retried in
   * place, so the messages after it wait and nothing is acknowledged out of turn.
   */
  private async handle(message: JsMsg): Promise<void> {
    const event = eventOf(message, this.deps.logger);
    if (!event) return;
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
