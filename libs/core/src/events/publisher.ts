import type { Connection, Model } from 'mongoose';
import type { JetStreamClient, NatsConnection } from 'nats';
import type { NatsLink } from './subscribe.js';
import { StringCodec } from 'nats';
import { followConnection } from './connection.js';
import type { Logger } from 'pino';
import type { DomainEvents, EventName } from './catalogue.js';
import {
  LEGACY_EVENT_MARKS_FIELD,
  MARK_RETENTION_MS,
  newEventId,
  outboxModel,
  WITNESSED_EVENTS_FIELD,
  type EventWitness,
  type OutboxRecord,
} from './outbox.js';
import { countEvent, watchOutbox } from '../metrics/index.js';
import { CoalescedWrites } from '../mongo/coalesced-writes.js';
import { rowsOf } from '../mongo/driver.js';
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

/**
 * The ID and time of an event another process chose and may have handed to the stream already
 * (the gateway's direct publish, ADR 0215): the same ID makes both one message to JetStream.
 * One that is not an event ID (a UUID) or a time is replaced by a new one.
 */
export interface ChosenEnvelope {
  id: string;
  occurredAt?: string | undefined;
}

const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The envelope of a new event, under a chosen ID and time where they are valid. */
export function eventEnvelope<N extends EventName>(
  source: string,
  { name, resourceId = null, payload }: PublishInput<N>,
  chosen?: ChosenEnvelope,
): DomainEvent<N> {
  const occurredAt = chosen?.occurredAt ? new Date(chosen.occurredAt) : new Date();
  return {
    id: chosen && EVENT_ID.test(chosen.id) ? chosen.id : newEventId(),
    name,
    source,
    occurred_at: (Number.isNaN(occurredAt.getTime()) ? new Date() : occurredAt).toISOString(),
    resource_id: resourceId,
    payload,
  };
}

/** The stream subject of an event name. */
export const subjectOf = (name: EventName): string => `${EVENT_SUBJECT_PREFIX}${name}`;

/** What a publisher says: the name decides the payload's type (catalogue.ts). */
export interface PublishInput<N extends EventName> {
  name: N;
  resourceId?: number | null;
  payload: DomainEvents[N];
}

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

/** Update operators that mark a witness with events (ADR 0198); merge them with `withMarks`. */
export interface EventMarks {
  $set: Record<string, Date>;
  $unset?: Record<string, ''>;
}

/**
 * Marks for `prepared`; with `asRead`, the witness as read before this write, its marks older
 * than the retention go in the same operation (different paths: no conflict on MongoDB).
 */
export const markedBy = (prepared: readonly PreparedEvent[], asRead?: object | null): EventMarks => {
  const now = new Date();
  const $set = Object.fromEntries(prepared.map(({ event }) => [`${WITNESSED_EVENTS_FIELD}.${event.id}`, now]));
  const held = ((asRead as Record<string, unknown> | null | undefined)?.[WITNESSED_EVENTS_FIELD] ?? {}) as Record<string, Date | string>;
  const stale = Object.entries(held).filter(([, markedAt]) => now.getTime() - new Date(markedAt).getTime() > MARK_RETENTION_MS);
  if (stale.length === 0) return { $set };
  return { $set, $unset: Object.fromEntries(stale.map(([id]) => [`${WITNESSED_EVENTS_FIELD}.${id}`, ''])) };
};

/** `update` with `marks` merged into its `$set` and `$unset`. */
export const withMarks = <U extends { $set?: object; $unset?: object }>(update: U, marks: EventMarks | undefined): U => {
  if (!marks) return update;
  const $unset = update.$unset || marks.$unset ? { $unset: { ...update.$unset, ...marks.$unset } } : {};
  return { ...update, $set: { ...update.$set, ...marks.$set }, ...$unset };
};

/** Fields that mark a witness being inserted with `prepared` events. */
export const markFields = (...prepared: PreparedEvent[]) => {
  const now = new Date();
  return { [WITNESSED_EVENTS_FIELD]: Object.fromEntries(prepared.map(({ event }) => [event.id, now])) };
};

/** What the outbox holds now, for the metrics. */
export interface OutboxStats {
  pending: number;
  /** Age of the oldest pending event, 0 when none. */
  oldestAgeSeconds: number;
}

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

const codec = StringCodec();
const RELAY_BATCH = 100;
// Ready events one relay read takes. FerretDB sorts in memory after reading every ready record,
// so a read costs the whole backlog whatever its limit: few large reads, not many small ones.
const RELAY_READ = 5_000;
// Publishes in flight at once while the relay drains: one at a time managed ~70 events/s, too
// slow to drain a minute's backlog of a busy process in seconds.
const RELAY_WINDOW = 64;
// Records of one bucket (ADR 0200): a delete reads at most this many rows, and a relay window or
// a settle batch of this process's records spans one or two buckets.
const BUCKET_SIZE = 64;
const DEFAULT_ACK_TIMEOUT_MS = 1_000;
const DEFAULT_PREPARED_GRACE_MS = 30_000;
const DEFAULT_SETTLE_WINDOW_MS = 100;
const IDLE_SWEEP_INTERVALS = 10;
const RECONNECT_DRAIN_INTERVAL_MS = 250;
const RECONNECT_DRAIN_ATTEMPTS = 240;

export async function createEventPublisher(options: PublisherOptions): Promise<EventPublisher> {
  const {
    source,
    connection,
    nats,
    logger,
    retryIntervalMs,
    streamReplicas = 1,
    ackTimeoutMs = DEFAULT_ACK_TIMEOUT_MS,
    preparedGraceMs = DEFAULT_PREPARED_GRACE_MS,
    settleWindowMs = DEFAULT_SETTLE_WINDOW_MS,
    idleSweepMs = IDLE_SWEEP_INTERVALS * retryIntervalMs,
  } = options;
  const outbox: Model<OutboxRecord> = outboxModel(connection);
  // Every field written by `recordOf`; concurrent prepares share an insert (ADR 0193).
  const preparedInserts = new CoalescedWrites(rowsOf(outbox));
  // Set once the connection is up; until then, and while NATS is away, a publish goes straight
  // to the outbox instead of waiting for an acknowledgement that cannot come, and the
  // (re)connection drains the outbox at once (below).
  let bus: { nats: NatsConnection; jetstream: JetStreamClient } | undefined;
  let connected = false;
  let streamReady: Promise<boolean> = Promise.resolve(false);
  const ensureStream = (): Promise<boolean> =>
    bus
      ? ensureEventStream(bus.nats, streamReplicas).then(
          () => true,
          (error: unknown) => {
            logger.warn({ err: error }, 'event stream not ready; events wait in the outbox');
            return false;
          },
        )
      : Promise.resolve(false);

  // Buckets are this process's own: no other writer adds to them.
  const bucketPrefix = newEventId();
  let recorded = 0;
  const recordOf = (event: DomainEvent, extra: Partial<OutboxRecord> = {}): OutboxRecord => ({
    _id: event.id,
    subject: subjectOf(event.name),
    payload: JSON.stringify(event),
    created_at: new Date(),
    attempts: 0,
    bucket: `${bucketPrefix}.${Math.floor(recorded++ / BUCKET_SIZE)}`,
    ...extra,
  });

  /**
   * The stream exists (or was just created). Concurrent sends that find it not ready share one
   * check: the first to notice starts it, the others wait for that one.
   */
  const streamExists = async (): Promise<boolean> => {
    const known = streamReady;
    if (await known) return true;
    if (streamReady === known) streamReady = ensureStream();
    return streamReady;
  };

  /** JetStream stores it (or already has it: the message ID makes a repeat a no-op). */
  const send = async (record: OutboxRecord, timeout?: number): Promise<void> => {
    if (!bus) throw new Error('NATS not connected yet');
    if (!(await streamExists())) throw new Error('event stream not ready');
    await bus.jetstream.publish(record.subject, codec.encode(record.payload), { msgID: record._id, ...(timeout ? { timeout } : {}) });
  };

  /**
   * Published events leave the outbox: one `delete` command, with one statement per bucket
   * (ADR 0200) and one per record of an older version. Their marks stay (ADR 0198).
   */
  const settle = async (records: readonly OutboxRecord[]): Promise<void> => {
    const buckets = new Map<string, string[]>();
    const loose: string[] = [];
    for (const { _id, bucket } of records) {
      const ids = bucket === undefined ? loose : buckets.get(bucket);
      if (ids) ids.push(_id);
      else buckets.set(bucket!, [_id]);
    }
    await outbox.collection
      .bulkWrite(
        [
          ...[...buckets].map(([bucket, ids]) => ({ deleteMany: { filter: { bucket, _id: { $in: ids as never[] } } } })),
          ...loose.map((_id) => ({ deleteOne: { filter: { _id: _id as never } } })),
        ],
        { ordered: false },
      )
      .catch((error: unknown) =>
        logger.warn({ err: error, event_ids: records.map(({ _id }) => _id) }, 'published events not cleared; they may be sent again'),
      );
  };

  // Settles of committed prepared events wait up to `settleWindowMs` and go together (ADR 0193):
  // a crash meanwhile leaves published records behind, which the relay publishes again under the
  // same message ID once the grace has passed, as after a crash between publish and delete.
  let settling: OutboxRecord[] = [];
  let settleTimer: NodeJS.Timeout | undefined;
  const settleQueued = (): Promise<void> => {
    clearTimeout(settleTimer);
    settleTimer = undefined;
    const batch = settling;
    settling = [];
    return batch.length > 0 ? settle(batch) : Promise.resolve();
  };
  const settleSoon = (record: OutboxRecord): void => {
    settling.push(record);
    if (settling.length >= RELAY_BATCH || settleWindowMs <= 0) void settleQueued();
    else settleTimer ??= setTimeout(() => void settleQueued(), settleWindowMs).unref();
  };

  /**
   * One relay delivery of a window of outbox records, published side by side on the one
   * connection (JetStream stores them in the order sent); the acknowledged ones leave the outbox
   * together. Answers how many were acknowledged.
   */
  const deliver = async (records: readonly OutboxRecord[]): Promise<number> => {
    const outcomes = await Promise.allSettled(records.map((record) => send(record)));
    const sent = records.filter((_, index) => outcomes[index]!.status === 'fulfilled');
    const failed = records.filter((_, index) => outcomes[index]!.status === 'rejected');
    if (sent.length > 0) countEvent(source, 'relayed', sent.length);
    if (failed.length > 0) {
      const reason = (outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason as unknown;
      logger.warn({ err: reason, event_ids: failed.map(({ _id }) => _id) }, 'event delivery deferred');
      await outbox.updateMany({ _id: { $in: failed.map(({ _id }) => _id) } }, { $inc: { attempts: 1 } }).catch(() => undefined);
    }
    if (sent.length > 0) await settle(sent);
    return sent.length;
  };

  /** Did the write a prepared event announces commit? Its witness carries the mark then. */
  const witnessed = async ({ _id, witness }: OutboxRecord): Promise<boolean> =>
    witness !== undefined &&
    (await connection.collection(witness.collection).countDocuments(
      {
        _id: witness.id as never,
        $or: [{ [`${WITNESSED_EVENTS_FIELD}.${_id}`]: { $exists: true } }, { [LEGACY_EVENT_MARKS_FIELD]: _id }],
      },
      { limit: 1 },
    )) > 0;

  // False from the first event that went to the outbox until the relay has delivered them all
  // (per process; the order across replicas is not guaranteed anyway).
  let outboxDrained = true;

  const publishNow = async (record: OutboxRecord): Promise<boolean> => {
    if (!connected) return false;
    try {
      await send(record, ackTimeoutMs);
      countEvent(source, 'direct');
      return true;
    } catch (error) {
      logger.warn({ err: error, event_id: record._id, subject: record.subject }, 'event goes to the outbox');
      return false;
    }
  };

  /** Prepared events whose writes had their time: published when witnessed, dropped when not. */
  const judgePrepared = async (): Promise<void> => {
    const stale = await outbox
      .find({ state: 'prepared', created_at: { $lt: new Date(Date.now() - preparedGraceMs) } })
      .sort({ created_at: 1 })
      .limit(RELAY_BATCH)
      .lean<OutboxRecord[]>();
    for (const record of stale) {
      if (await witnessed(record)) await outbox.updateOne({ _id: record._id, state: 'prepared' }, { $set: { state: 'ready' } });
      else await outbox.deleteOne({ _id: record._id, state: 'prepared' });
    }
  };

  /** Ready events in order, batch after batch, until none is left or one cannot be delivered. */
  let lastPassAt = 0;
  const flushPending = async (): Promise<number> => {
    lastPassAt = Date.now();
    await judgePrepared();
    // Without a connection a delivery would only wait for its timeout.
    if (!connected) return 0;
    let delivered = 0;
    for (;;) {
      const pending = await outbox
        .find({ state: { $ne: 'prepared' } })
        .sort({ created_at: 1 })
        .limit(RELAY_READ)
        .lean<OutboxRecord[]>();
      for (let start = 0; start < pending.length; start += RELAY_WINDOW) {
        const window = pending.slice(start, start + RELAY_WINDOW);
        const sent = await deliver(window);
        delivered += sent;
        if (sent < window.length) return delivered;
      }
      if (pending.length < RELAY_READ) {
        outboxDrained = true;
        return delivered;
      }
    }
  };
  let flushing: Promise<number> | null = null;
  const flush = (): Promise<number> => {
    flushing ??= flushPending().finally(() => {
      flushing = null;
    });
    return flushing;
  };

  // After a (re)connection JetStream may need a few seconds before it stores again: retry soon
  // rather than at the relay's next tick, until the outbox is drained or NATS is gone again.
  const drainNow = async (): Promise<void> => {
    for (let attempt = 0; attempt < RECONNECT_DRAIN_ATTEMPTS && connected; attempt++) {
      await flush().catch((error: unknown) => logger.warn({ err: error }, 'outbox relay pass failed'));
      if (outboxDrained && (await outbox.countDocuments({ state: { $ne: 'prepared' } }).catch(() => 1)) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DRAIN_INTERVAL_MS));
    }
  };
  followConnection(nats, {
    opened: (connection) => {
      bus = { nats: connection, jetstream: connection.jetstream() };
      streamReady = ensureStream();
    },
    changed: (now) => {
      connected = now;
      if (now) void drainNow();
    },
  });

  // Two queries a pass: an idle process passes rarely (12 processes polling every 500 ms cost a
  // drill stack a tenth of its CPU), one with events waiting at every interval.
  const timer = setInterval(() => {
    if (outboxDrained && Date.now() - lastPassAt < idleSweepMs) return;
    flush().catch((error: unknown) => logger.warn({ err: error }, 'outbox relay pass failed'));
  }, retryIntervalMs);
  timer.unref();

  const newEvent = <N extends EventName>(input: PublishInput<N>, chosen?: ChosenEnvelope): DomainEvent<N> =>
    eventEnvelope(source, input, chosen);

  const stats = async (): Promise<OutboxStats> => {
    const [pending, oldest] = await Promise.all([
      outbox.countDocuments(),
      outbox.findOne().sort({ created_at: 1 }).select({ created_at: 1 }).lean<Pick<OutboxRecord, 'created_at'>>(),
    ]);
    return { pending, oldestAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.created_at.getTime()) / 1000) : 0 };
  };
  watchOutbox(source, stats);

  return {
    async publish<N extends EventName>(input: PublishInput<N>, envelope?: ChosenEnvelope): Promise<DomainEvent<N>> {
      const event = newEvent(input, envelope);
      const record = recordOf(event);
      // The state write before this call is not transactional with either path, so publishing
      // first loses nothing the outbox would keep, and saves two writes per event. While the
      // outbox holds events, new ones queue behind them to keep their order.
      if (outboxDrained && (await publishNow(record))) return event;
      outboxDrained = false;
      await outbox.create(record);
      countEvent(source, 'queued');
      return event;
    },
    notify<N extends EventName>(input: PublishInput<N>): void {
      if (!bus || !connected) return;
      const { subject, payload } = recordOf(newEvent(input));
      bus.nats.publish(subject, codec.encode(payload));
      countEvent(source, 'notified');
    },
    async prepare<N extends EventName>(input: PublishInput<N>, witness: EventWitness): Promise<PreparedEvent<N>> {
      const event = newEvent(input);
      const record = recordOf(event, { state: 'prepared', witness });
      await preparedInserts.insertOne(record);
      return {
        event,
        witness,
        async commit() {
          if (outboxDrained && (await publishNow(record))) {
            settleSoon(record);
            return event;
          }
          outboxDrained = false;
          // Upserted: a write that outlived the grace may find its record judged and gone.
          await outbox.replaceOne({ _id: record._id }, { ...record, state: 'ready' }, { upsert: true });
          countEvent(source, 'queued');
          return event;
        },
      };
    },
    flush,
    stats,
    async stop() {
      clearInterval(timer);
      await flushing?.catch(() => 0);
      await settleQueued();
    },
  };
}
