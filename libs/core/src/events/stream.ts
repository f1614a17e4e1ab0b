import type { NatsConnection } from 'nats';

export const EVENT_STREAM = 'MASTHEAD_EVENTS';
export const EVENT_SUBJECT_PREFIX = 'masthead.events.';

const NANOS_PER_MS = 1_000_000;
// Two minutes of de-duplication covers the relay's retries after a lost acknowledgement.
const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
/**
 * How long the stream keeps an event (ADR 0207): every page view and sign-in is one, so a stream
 * without a limit fills its disk. Two weeks outlasts any consumer's outage an operator would let
 * run; what a consumer has not read by then it cannot act on usefully anyway.
 */
export const EVENT_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Creates the stream when missing; safe to call from every process at boot. `replicas` is 1 on
 * a single server and 3 on a cluster (EVENT_STREAM_REPLICAS). An existing stream keeps its
 * settings, except that one created without an age limit (by an older version) gets ours.
 */
export async function ensureEventStream(nats: NatsConnection, replicas = 1): Promise<void> {
  const manager = await nats.jetstreamManager();
  let info;
  try {
    info = await manager.streams.info(EVENT_STREAM);
  } catch {
    await manager.streams.add({
      name: EVENT_STREAM,
      subjects: [`${EVENT_SUBJECT_PREFIX}>`],
      num_replicas: replicas,
      duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
      max_age: EVENT_RETENTION_MS * NANOS_PER_MS,
    });
    return;
  }
  if (!info.config.max_age) await manager.streams.update(EVENT_STREAM, { ...info.config, max_age: EVENT_RETENTION_MS * NANOS_PER_MS });
}
