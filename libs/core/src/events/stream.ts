import type { NatsConnection } from 'nats';

export const EVENT_STREAM = 'MASTHEAD_EVENTS';
export const EVENT_SUBJECT_PREFIX = 'masthead.events.';

/**
 * Creates the stream when missing; safe to call from every process at boot. `replicas` is 1 on
 * a single server and 3 on a cluster (EVENT_STREAM_REPLICAS); an existing stream is left as is.
 */
export async function ensureEventStream(nats: NatsConnection, replicas = 1): Promise<void> {
  const manager = await nats.jetstreamManager();
  try {
    await manager.streams.info(EVENT_STREAM);
  } catch {
    await manager.streams.add({
      name: EVENT_STREAM,
      subjects: [`${EVENT_SUBJECT_PREFIX}>`],
      num_replicas: replicas,
      // Two minutes of de-duplication covers the relay's retries after a lost acknowledgement.
      duplicate_window: 120_000_000_000,
    });
  }
}
