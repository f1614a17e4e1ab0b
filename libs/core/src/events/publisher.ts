import type { Connection, Model } from 'mongoose';
import type { JetStreamClient, NatsConnection } from 'nats';
import { StringCodec } from 'nats';
import type { Logger } from 'pino';
import { newEventId, outboxModel, type OutboxRecord } from './outbox.js';
import { ensureEventStream, EVENT_SUBJECT_PREFIX } from './stream.js';

/** The envelope every domain event travels in. */
export interface DomainEvent<Payload = Record<string, unknown>> {
  id: string;
  name: string;
  source: string;
  occurred_at: string;
  resource_id: number | null;
  payload: Payload;
}

export interface PublishInput {
  name: string;
  resourceId?: number | null;
  payload: Record<string, unknown>;
}

export interface EventPublisher {
  /**
   * Records the event in the outbox and tries to deliver it at once. Never throws for a
   * delivery failure: the relay retries until JetStream acknowledges it. Throws only when the
   * outbox write itself fails, so a caller never reports success for an event that is lost.
   */
  publish(input: PublishInput): Promise<DomainEvent>;
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
}

const codec = StringCodec();
const RELAY_BATCH = 100;

export async function createEventPublisher(options: PublisherOptions): Promise<EventPublisher> {
  const { source, connection, nats, logger, retryIntervalMs, streamReplicas = 1 } = options;
  const outbox: Model<OutboxRecord> = outboxModel(connection);
  const jetstream: JetStreamClient = nats.jetstream();
  let streamReady = ensureEventStream(nats, streamReplicas).then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, 'event stream not ready; events wait in the outbox');
      return false;
    },
  );

  // Records this process is publishing now: the relay must not publish them a second time.
  const inFlight = new Set<string>();

  const deliver = async (record: OutboxRecord): Promise<boolean> => {
    if (inFlight.has(record._id)) return true;
    inFlight.add(record._id);
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
    } finally {
      inFlight.delete(record._id);
    }
  };

  let flushing: Promise<number> | null = null;
  const flushPending = async (): Promise<number> => {
    const pending = await outbox.find().sort({ created_at: 1 }).limit(RELAY_BATCH).lean<OutboxRecord[]>();
    let delivered = 0;
    for (const record of pending) {
      // Delivered meanwhile by the publish that wrote it: JetStream would drop the duplicate,
      // but plain subscribers would see it twice.
      if (inFlight.has(record._id) || !(await outbox.exists({ _id: record._id }))) continue;
      if (!(await deliver(record))) break;
      delivered++;
    }
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
    async publish({ name, resourceId = null, payload }) {
      const event: DomainEvent = {
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
      await outbox.create(record);
      // Delivery runs after the caller's response; its failure leaves the record for the relay.
      void deliver(record);
      return event;
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flushing?.catch(() => 0);
    },
  };
}
