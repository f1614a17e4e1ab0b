import type { Connection, Model } from 'mongoose';
import type { JetStreamClient, NatsConnection } from 'nats';
import { StringCodec } from 'nats';
import type { Logger } from 'pino';
import type { DomainEvents, EventName } from './catalogue.js';
import { newEventId, outboxModel, type OutboxRecord } from './outbox.js';
import { ensureEventStream, EVENT_SUBJECT_PREFIX } from './stream.js';

/** The envelope every domain event travels in; `N` narrows the name and so the payload. */
export interface DomainEvent<N extends EventName = EventName> {
  id: string;
  name: N;
  source: string;
  occurred_at: string;
  resource_id: number | null;
  payload: DomainEvents[N];
}

/** What a publisher says: the name decides the payload's type (catalogue.ts). */
export interface PublishInput<N extends EventName> {
  name: N;
  resourceId?: number | null;
  payload: DomainEvents[N];
}

export interface EventPublisher {
  /**
   * Hands the event to JetStream and waits for its acknowledgement; when that fails (or the
   * stream is unhealthy) records it in the outbox instead, from where the relay retries until
   * JetStream acknowledges it. Throws only when the outbox write itself fails, so a caller never
   * reports success for an event that is lost.
   */
  publish<N extends EventName>(input: PublishInput<N>): Promise<DomainEvent<N>>;
  /** Delivers what is pending now (used by the relay timer and by tests). */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

export interface PublisherOptions {
  source: string;
  connection: Connection;
  nats: NatsConnection;
  logger: Logger;
  retryIntervalMs: number;
  /** Replicas of the event stream when this process creates it. */
  streamReplicas?: number;
  /** How long a publish waits for JetStream's acknowledgement before using the outbox. */
  ackTimeoutMs?: number;
}

const codec = StringCodec();
const RELAY_BATCH = 100;
const DEFAULT_ACK_TIMEOUT_MS = 1_000;

export async function createEventPublisher(options: PublisherOptions): Promise<EventPublisher> {
  const { source, connection, nats, logger, retryIntervalMs, streamReplicas = 1, ackTimeoutMs = DEFAULT_ACK_TIMEOUT_MS } = options;
  const outbox: Model<OutboxRecord> = outboxModel(connection);
  const jetstream: JetStreamClient = nats.jetstream();
  let streamReady = ensureEventStream(nats, streamReplicas).then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, 'event stream not ready; events wait in the outbox');
      return false;
    },
  );

  /** One relay delivery of an outbox record; the record leaves the outbox once acknowledged. */
  const deliver = async (record: OutboxRecord): Promise<boolean> => {
    try {
      if (!(await streamReady)) {
        streamReady = ensureEventStream(nats).then(
          () => true,
          () => false,
        );
        if (!(await streamReady)) return false;
      }
      // The message ID lets JetStream drop a duplicate when a retry follows a lost ack.
      await jetstream.publish(record.subject, codec.encode(record.payload), { msgID: record._id });
      await outbox.deleteOne({ _id: record._id });
      return true;
    } catch (error) {
      logger.warn({ err: error, event_id: record._id, subject: record.subject }, 'event delivery deferred');
      await outbox.updateOne({ _id: record._id }, { $inc: { attempts: 1 } }).catch(() => undefined);
      return false;
    }
  };

  // False from the first event that went to the outbox until the relay has delivered them all
  // (per process; the order across replicas is not guaranteed anyway).
  let outboxDrained = true;

  const publishNow = async (record: OutboxRecord): Promise<boolean> => {
    if (!(await streamReady)) return false;
    try {
      await jetstream.publish(record.subject, codec.encode(record.payload), { msgID: record._id, timeout: ackTimeoutMs });
      return true;
    } catch (error) {
      logger.warn({ err: error, event_id: record._id, subject: record.subject }, 'event goes to the outbox');
      return false;
    }
  };

  let flushing: Promise<number> | null = null;
  const flushPending = async (): Promise<number> => {
    const pending = await outbox.find().sort({ created_at: 1 }).limit(RELAY_BATCH).lean<OutboxRecord[]>();
    let delivered = 0;
    for (const record of pending) {
      if (!(await deliver(record))) return delivered;
      delivered++;
    }
    if (pending.length < RELAY_BATCH) outboxDrained = true;
    return delivered;
  };
  const flush = (): Promise<number> => {
    flushing ??= flushPending().finally(() => {
      flushing = null;
    });
    return flushing;
  };

  const timer = setInterval(() => {
    flush().catch((error: unknown) => logger.warn({ err: error }, 'outbox relay pass failed'));
  }, retryIntervalMs);
  timer.unref();

  return {
    async publish<N extends EventName>({ name, resourceId = null, payload }: PublishInput<N>): Promise<DomainEvent<N>> {
      const event: DomainEvent<N> = {
        id: newEventId(),
        name,
        source,
        occurred_at: new Date().toISOString(),
        resource_id: resourceId,
        payload,
      };
      const record: OutboxRecord = {
        _id: event.id,
        subject: `${EVENT_SUBJECT_PREFIX}${name}`,
        payload: JSON.stringify(event),
        created_at: new Date(),
        attempts: 0,
      };
      // The state write before this call is not transactional with either path, so publishing
      // first loses nothing the outbox would keep, and saves two writes per event. While the
      // outbox holds events, new ones queue behind them to keep their order.
      if (outboxDrained && (await publishNow(record))) return event;
      outboxDrained = false;
      await outbox.create(record);
      return event;
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flushing?.catch(() => 0);
    },
  };
}
