import type { Connection, Model } from 'mongoose';
import type { Logger } from 'pino';
import { countEvent } from '../metrics/index.js';
import type { DomainEvent } from './envelope.js';
import { subjectOf } from './envelope.js';
import type { EventBus } from './event-bus.js';
import { LEGACY_EVENT_MARKS_FIELD, newEventId, WITNESSED_EVENTS_FIELD, type OutboxRecord } from './outbox.js';

/** What the outbox holds now, for the metrics. */
export interface OutboxStats {
  pending: number;
  /** Age of the oldest pending event, 0 when none. */
  oldestAgeSeconds: number;
}

export interface RelayOptions {
  source: string;
  logger: Logger;
  retryIntervalMs: number;
  /** Younger prepared events belong to writes that may still commit; older ones are judged. */
  preparedGraceMs: number;
  /** How long a settle may wait to go with others; 0 settles each at once. */
  settleWindowMs: number;
  /** How often the relay passes while this process has nothing waiting. */
  idleSweepMs: number;
}

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
const RECONNECT_DRAIN_INTERVAL_MS = 250;
const RECONNECT_DRAIN_ATTEMPTS = 240;

/**
 * The outbox of one process (ADR 0180, 0193, 0200): keeps what the stream did not take, hands it
 * to the stream in order until acknowledged, judges prepared events by their witness, and clears
 * published records in batches.
 */
export class OutboxRelay {
  // Buckets are this process's own: no other writer adds to them.
  private readonly bucketPrefix = newEventId();
  private recorded = 0;
  // False from the first event that went to the outbox until the relay has delivered them all
  // (per process; the order across replicas is not guaranteed anyway).
  private isDrained = true;
  private lastPassAt = 0;
  private flushing: Promise<number> | null = null;
  private settling: OutboxRecord[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly outbox: Model<OutboxRecord>,
    private readonly database: Connection,
    private readonly bus: EventBus,
    private readonly options: RelayOptions,
  ) {
    // Two queries a pass: an idle process passes rarely (12 processes polling every 500 ms cost
    // a drill stack a tenth of its CPU), one with events waiting at every interval.
    this.timer = setInterval(() => {
      if (this.isDrained && Date.now() - this.lastPassAt < options.idleSweepMs) return;
      this.flush().catch((error: unknown) => options.logger.warn({ err: error }, 'outbox relay pass failed'));
    }, options.retryIntervalMs);
    this.timer.unref();
    bus.onConnected(() => void this.drainAfterReconnect());
  }

  /** Nothing of this process's waits: new events may go straight to the stream. */
  get drained(): boolean {
    return this.isDrained;
  }

  /** The outbox record of an event; `extra` for prepared ones. */
  recordOf(event: DomainEvent, extra: Partial<OutboxRecord> = {}): OutboxRecord {
    return {
      _id: event.id,
      subject: subjectOf(event.name),
      payload: JSON.stringify(event),
      created_at: new Date(),
      attempts: 0,
      bucket: `${this.bucketPrefix}.${Math.floor(this.recorded++ / BUCKET_SIZE)}`,
      ...extra,
    };
  }

  /**
   * Keeps an event of a committed write that the stream did not take; later events queue behind
   * it to keep their order. A prepared one becomes ready.
   */
  async keep(record: OutboxRecord): Promise<void> {
    this.isDrained = false;
    if (record.state === 'prepared') {
      // Upserted: a write that outlived the grace may find its record judged and gone.
      await this.outbox.replaceOne({ _id: record._id }, { ...record, state: 'ready' }, { upsert: true });
    } else {
      await this.outbox.create(record);
    }
    countEvent(this.options.source, 'queued');
  }

  /**
   * A published prepared event leaves the outbox with others within the settle window (ADR
   * 0193): a crash meanwhile leaves published records behind, which the relay publishes again
   * under the same message ID once the grace has passed.
   */
  settleSoon(record: OutboxRecord): void {
    this.settling.push(record);
    if (this.settling.length >= RELAY_BATCH || this.options.settleWindowMs <= 0) void this.settleQueued();
    else this.settleTimer ??= setTimeout(() => void this.settleQueued(), this.options.settleWindowMs).unref();
  }

  /** Delivers what is pending now; concurrent callers share one pass. */
  flush(): Promise<number> {
    this.flushing ??= this.flushPending().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /**
   * After a (re)connection JetStream may need a few seconds before it stores again: retry soon
   * rather than at the relay's next tick, until the outbox is drained or NATS is gone again.
   */
  async drainAfterReconnect(): Promise<void> {
    for (let attempt = 0; attempt < RECONNECT_DRAIN_ATTEMPTS && this.bus.connected; attempt++) {
      await this.flush().catch((error: unknown) => this.options.logger.warn({ err: error }, 'outbox relay pass failed'));
      if (this.isDrained && (await this.outbox.countDocuments({ state: { $ne: 'prepared' } }).catch(() => 1)) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DRAIN_INTERVAL_MS));
    }
  }

  async stats(): Promise<OutboxStats> {
    const [pending, oldest] = await Promise.all([
      this.outbox.countDocuments(),
      this.outbox.findOne().sort({ created_at: 1 }).select({ created_at: 1 }).lean<Pick<OutboxRecord, 'created_at'>>(),
    ]);
    return { pending, oldestAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.created_at.getTime()) / 1000) : 0 };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing?.catch(() => 0);
    await this.settleQueued();
  }

  private settleQueued(): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const batch = this.settling;
    this.settling = [];
    return batch.length > 0 ? this.settle(batch) : Promise.resolve();
  }

  /**
   * Published events leave the outbox: one `delete` command, with one statement per bucket
   * (ADR 0200) and one per record of an older version. Their marks stay (ADR 0198).
   */
  private async settle(records: readonly OutboxRecord[]): Promise<void> {
    const buckets = new Map<string, string[]>();
    const loose: string[] = [];
    for (const { _id, bucket } of records) {
      const ids = bucket === undefined ? loose : buckets.get(bucket);
      if (ids) ids.push(_id);
      else buckets.set(bucket!, [_id]);
    }
    await this.outbox.collection
      .bulkWrite(
        [
          ...[...buckets].map(([bucket, ids]) => ({ deleteMany: { filter: { bucket, _id: { $in: ids as never[] } } } })),
          ...loose.map((_id) => ({ deleteOne: { filter: { _id: _id as never } } })),
        ],
        { ordered: false },
      )
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, event_ids: records.map(({ _id }) => _id) },
          'published events not cleared; they may be sent again',
        ),
      );
  }

  /**
   * One delivery of a window of outbox records, published side by side on the one connection
   * (JetStream stores them in the order sent); the acknowledged ones leave the outbox together.
   * Answers how many were acknowledged.
   */
  private async deliver(records: readonly OutboxRecord[]): Promise<number> {
    const outcomes = await Promise.allSettled(records.map((record) => this.bus.send(record)));
    const sent = records.filter((_, index) => outcomes[index]!.status === 'fulfilled');
    const failed = records.filter((_, index) => outcomes[index]!.status === 'rejected');
    if (sent.length > 0) countEvent(this.options.source, 'relayed', sent.length);
    if (failed.length > 0) {
      const reason = (outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason as unknown;
      this.options.logger.warn({ err: reason, event_ids: failed.map(({ _id }) => _id) }, 'event delivery deferred');
      await this.outbox.updateMany({ _id: { $in: failed.map(({ _id }) => _id) } }, { $inc: { attempts: 1 } }).catch(() => undefined);
    }
    if (sent.length > 0) await this.settle(sent);
    return sent.length;
  }

  /** Did the write a prepared event announces commit? Its witness carries the mark then. */
  private async witnessed({ _id, witness }: OutboxRecord): Promise<boolean> {
    if (witness === undefined) return false;
    const marked = await this.database.collection(witness.collection).countDocuments(
      {
        _id: witness.id as never,
        $or: [{ [`${WITNESSED_EVENTS_FIELD}.${_id}`]: { $exists: true } }, { [LEGACY_EVENT_MARKS_FIELD]: _id }],
      },
      { limit: 1 },
    );
    return marked > 0;
  }

  /** Prepared events whose writes had their time: published when witnessed, dropped when not. */
  private async judgePrepared(): Promise<void> {
    const stale = await this.outbox
      .find({ state: 'prepared', created_at: { $lt: new Date(Date.now() - this.options.preparedGraceMs) } })
      .sort({ created_at: 1 })
      .limit(RELAY_BATCH)
      .lean<OutboxRecord[]>();
    for (const record of stale) {
      if (await this.witnessed(record)) await this.outbox.updateOne({ _id: record._id, state: 'prepared' }, { $set: { state: 'ready' } });
      else await this.outbox.deleteOne({ _id: record._id, state: 'prepared' });
    }
  }

  /** Ready events in order, batch after batch, until none is left or one cannot be delivered. */
  private async flushPending(): Promise<number> {
    this.lastPassAt = Date.now();
    await this.judgePrepared();
    // Without a connection a delivery would only wait for its timeout.
    if (!this.bus.connected) return 0;
    let delivered = 0;
    for (;;) {
      const pending = await this.outbox
        .find({ state: { $ne: 'prepared' } })
        .sort({ created_at: 1 })
        .limit(RELAY_READ)
        .lean<OutboxRecord[]>();
      for (let start = 0; start < pending.length; start += RELAY_WINDOW) {
        const window = pending.slice(start, start + RELAY_WINDOW);
        const sent = await this.deliver(window);
        delivered += sent;
        if (sent < window.length) return delivered;
      }
      if (pending.length < RELAY_READ) {
        this.isDrained = true;
        return delivered;
      }
    }
  }
}
