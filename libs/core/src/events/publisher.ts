import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import { countEvent, watchOutbox } from '../metrics/index.js';
import { CoalescedWrites } from '../mongo/coalesced-writes.js';
import { rowsOf } from '../mongo/driver.js';
import type { EventName } from './catalogue.js';
import { eventEnvelope, type ChosenEnvelope, type DomainEvent, type PublishInput } from './envelope.js';
import { EventBus } from './event-bus.js';
import { outboxModel, type EventWitness, type OutboxRecord } from './outbox.js';
import { OutboxRelay, type OutboxStats } from './outbox-relay.js';
import type { NatsLink } from './subscribe.js';

/**
 * An event recorded before the write it announces (ADR 0180). The write marks its witness with
 * `markedBy(...)` (an update) or `markFields(...)` (an insert); `commit()` after the write
 * publishes it (its outbox record is cleared moments later, with others'). A crash
 * anywhere in between loses nothing and invents nothing: the relay
 * publishes the event once its witness carries the mark, and drops it when the write never
 * committed.
 */
export interface PreparedEvent<N extends EventName = EventName> {
  readonly event: DomainEvent<N>;
  readonly witness: EventWitness;
  commit(): Promise<DomainEvent<N>>;
}

/** The three ways to emit a domain event; docs/topics/events.md says which to use when. */
export interface EventPublisher {
  /**
   * Hands the event of a write that has committed to JetStream and waits for its
   * acknowledgement; when that fails (or NATS is away) records it in the outbox instead, from
   * where the relay retries until JetStream acknowledges it. Throws only when the outbox write
   * itself fails, so a caller never reports success for an event that is lost. A crash between
   * the write and this call loses the event: writes that must not lose theirs use `prepare`.
   */
  publish<N extends EventName>(input: PublishInput<N>, envelope?: ChosenEnvelope): Promise<DomainEvent<N>>;
  /**
   * Tells the processes' caches (`onEvent` listeners) of a change now, over plain NATS: no
   * acknowledgement, never queued (ADR 0199). One lost while NATS is away costs a listener at
   * most its cache's lifetime of staleness; delivered after an outage it would tell nobody
   * anything, and thousands of them delayed the events that matter. JetStream's stream still
   * stores it when NATS is up, as it stores every message of its subjects.
   */
  notify<N extends EventName>(input: PublishInput<N>): void;
  /** Records an event before its write (see PreparedEvent). */
  prepare<N extends EventName>(input: PublishInput<N>, witness: EventWitness): Promise<PreparedEvent<N>>;
  /** Delivers what is pending now (used by the relay timer and by tests). */
  flush(): Promise<number>;
  stats(): Promise<OutboxStats>;
  stop(): Promise<void>;
}

export interface PublisherOptions {
  source: string;
  connection: Connection;
  /** Connected now or later: until then every event waits in the outbox. */
  nats: NatsLink;
  logger: Logger;
  retryIntervalMs: number;
  /** Replicas of the event stream when this process creates it. */
  streamReplicas?: number;
  /** How long a publish waits for JetStream's acknowledgement before using the outbox. */
  ackTimeoutMs?: number;
  /**
   * How long a prepared event's write may take: younger prepared events belong to writes that
   * may still commit and are left alone; older ones are judged by their witness.
   */
  preparedGraceMs?: number;
  /**
   * How long the settle (outbox delete) of a committed prepared event may wait to
   * go with others; 0 settles each at once.
   */
  settleWindowMs?: number;
  /**
   * How often the relay passes while this process has nothing waiting, for what crashed writers
   * and other processes left behind (default: ten retry intervals). With events waiting it
   * passes every `retryIntervalMs`.
   */
  idleSweepMs?: number;
}

const DEFAULT_ACK_TIMEOUT_MS = 1_000;
const DEFAULT_PREPARED_GRACE_MS = 30_000;
const DEFAULT_SETTLE_WINDOW_MS = 100;
const IDLE_SWEEP_INTERVALS = 10;

export async function createEventPublisher(options: PublisherOptions): Promise<EventPublisher> {
  const { source, connection, logger, retryIntervalMs, ackTimeoutMs = DEFAULT_ACK_TIMEOUT_MS } = options;
  const outbox = outboxModel(connection);
  // Every field written by `recordOf`; concurrent prepares share an insert (ADR 0193).
  const preparedInserts = new CoalescedWrites(rowsOf(outbox));
  const bus = new EventBus(options.nats, options.streamReplicas ?? 1, logger);
  // Until NATS is up, and while it is away, a publish goes straight to the outbox; each
  // (re)connection drains the outbox at once.
  const outboxRelay = new OutboxRelay(outbox, connection, bus, {
    source,
    logger,
    retryIntervalMs,
    preparedGraceMs: options.preparedGraceMs ?? DEFAULT_PREPARED_GRACE_MS,
    settleWindowMs: options.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS,
    idleSweepMs: options.idleSweepMs ?? IDLE_SWEEP_INTERVALS * retryIntervalMs,
  });
  watchOutbox(source, () => outboxRelay.stats());

  /** Straight to the stream while nothing waits before it; false sends it to the outbox. */
  const publishNow = async (record: OutboxRecord): Promise<boolean> => {
    if (!outboxRelay.drained || !bus.connected) return false;
    try {
      await bus.send(record, ackTimeoutMs);
      countEvent(source, 'direct');
      return true;
    } catch (error) {
      logger.warn({ err: error, event_id: record._id, subject: record.subject }, 'event goes to the outbox');
      return false;
    }
  };

  return {
    async publish(input, envelope) {
      const event = eventEnvelope(source, input, envelope);
      const record = outboxRelay.recordOf(event);
      // The state write before this call is not transactional with either path, so publishing
      // first loses nothing the outbox would keep, and saves two writes per event.
      if (!(await publishNow(record))) await outboxRelay.keep(record);
      return event;
    },
    notify(input) {
      const { subject, payload } = outboxRelay.recordOf(eventEnvelope(source, input));
      if (bus.announce(subject, payload)) countEvent(source, 'notified');
    },
    async prepare(input, witness) {
      const event = eventEnvelope(source, input);
      const record = outboxRelay.recordOf(event, { state: 'prepared', witness });
      await preparedInserts.insertOne(record);
      return {
        event,
        witness,
        async commit() {
          if (await publishNow(record)) outboxRelay.settleSoon(record);
          else await outboxRelay.keep(record);
          return event;
        },
      };
    },
    flush: () => outboxRelay.flush(),
    stats: () => outboxRelay.stats(),
    stop: () => outboxRelay.stop(),
  };
}
