import { AckPolicy, DeliverPolicy, nanos, StringCodec, type ConsumerMessages, type JsMsg } from 'nats';
import type { Logger } from 'pino';
import type { EventName } from './catalogue.js';
import type { DomainEvent } from './envelope.js';
import { EVENT_STREAM, EVENT_SUBJECT_PREFIX, ensureEventStream } from './stream.js';
import { settledNow, type NatsLink } from './subscribe.js';

const codec = StringCodec();

export interface DurableConsumerOptions {
  nats: NatsLink;
  /** The consumer's name: one per deployment and purpose, shared by the process's replicas. */
  durable: string;
  /** The one event name it reads (NATS 2.9 filters a consumer on one subject only). */
  eventName: EventName;
  streamReplicas: number;
  /** How long a message stays this process's before it is offered again; the server's default otherwise. */
  ackWaitMs?: number;
  /** Messages buffered at once. */
  maxMessages: number;
  /**
   * When the consumer is first created, read the events the stream still holds (14 days, ADR
   * 0207) instead of new ones only: for an idempotent handler whose events may come before its
   * process's first start (docs/adr/0222).
   */
  fromStreamStart?: boolean;
  logger: Logger;
  /** Handles one message and settles it itself (ack, nak, term or working). */
  handle: (message: JsMsg) => Promise<void>;
}

export interface DurableConsumer {
  /** Stops reading; a message being handled finishes, unacknowledged ones are offered again. */
  stop(): Promise<void>;
}

/**
 * Reads one event name of the event stream with a durable consumer: created when missing, for new
 * events only unless `fromStreamStart`, shared by replicas, so an event a process was down for is
 * read when it is back. Fails while NATS is still connecting (docs/adr/0182): `keepStarting`
 * tries again, and stopping never waits for a connection.
 */
export async function startDurableConsumer(options: DurableConsumerOptions): Promise<DurableConsumer> {
  const { durable, ackWaitMs, logger } = options;
  const nats = await settledNow(options.nats);
  if (!nats) throw new Error('NATS is not connected yet');
  await ensureEventStream(nats, options.streamReplicas);
  const manager = await nats.jetstreamManager();
  try {
    await manager.consumers.info(EVENT_STREAM, durable);
    if (ackWaitMs !== undefined) await manager.consumers.update(EVENT_STREAM, durable, { ack_wait: nanos(ackWaitMs) });
  } catch {
    // Another replica may create it at the same moment: the same configuration is accepted.
    await manager.consumers.add(EVENT_STREAM, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: options.fromStreamStart ? DeliverPolicy.All : DeliverPolicy.New,
      filter_subject: `${EVENT_SUBJECT_PREFIX}${options.eventName}`,
      ...(ackWaitMs !== undefined ? { ack_wait: nanos(ackWaitMs) } : {}),
    });
  }
  const consumer = await nats.jetstream().consumers.get(EVENT_STREAM, durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.maxMessages });
  let stopping = false;
  const loop = (async () => {
    for await (const message of messages) {
      // Messages still buffered when stopping are left unacknowledged: they are offered again,
      // instead of each holding up the stop for as long as its handling takes.
      if (stopping) break;
      await options.handle(message);
    }
  })().catch((error: unknown) => logger.error({ err: error, consumer: durable }, 'durable consumer stopped'));
  return {
    async stop() {
      stopping = true;
      // Unsubscribes at once. Not awaited: nats.js settles `close` only when the iterator reaches
      // its close marker behind the buffered messages, which the loop above no longer takes.
      void messages.close().catch(() => undefined);
      await loop;
    },
  };
}

/** The event a message carries; an unreadable one is logged and terminated (never offered again). */
export function eventOf<N extends EventName>(message: JsMsg, logger: Logger): DomainEvent<N> | undefined {
  try {
    return JSON.parse(codec.decode(message.data)) as DomainEvent<N>;
  } catch (error) {
    logger.warn({ err: error, subject: message.subject }, 'unreadable event ignored');
    message.term();
    return undefined;
  }
}

/**
 * Runs `start` until it succeeds or `stopped()` says to give up, waiting `retryMs` after each
 * failure: JetStream may not be ready when a process starts, and the process starts anyway.
 */
export async function keepStarting(
  start: () => Promise<void>,
  { retryMs, logger, what, stopped }: { retryMs: number; logger: Logger; what: string; stopped: () => boolean },
): Promise<void> {
  while (!stopped()) {
    try {
      await start();
      return;
    } catch (error) {
      logger.warn({ err: error }, `${what} not started yet; retrying`);
      await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
    }
  }
}
