import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, type StartedServer } from '@masthead/local-infra';
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEventStream, EVENT_STREAM, EVENT_SUBJECT_PREFIX, newEventId, startDurableConsumer } from '../src/events/index.js';
import { createLogger } from '../src/logging/index.js';
import { until } from './until.js';

const logger = createLogger({ name: 'durable-consumer-test', level: 'silent' });

/** A durable consumer created after events of its name were published (docs/adr/0222). */
describe('durable consumer', () => {
  let dataDir: string;
  let server: StartedServer;
  let nats: NatsConnection;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'masthead-consumer-'));
    server = await startNats({ dataDir });
    nats = await connect({ servers: server.url });
    await ensureEventStream(nats, 1);
  });
  afterAll(async () => {
    await nats?.close();
    await server?.process.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The event IDs a new consumer reads within a moment. */
  const readBy = async (durable: string, fromStreamStart: boolean, expected: number): Promise<string[]> => {
    const seen: string[] = [];
    const consumer = await startDurableConsumer({
      nats,
      durable,
      eventName: 'sponsor_slot_activated',
      streamReplicas: 1,
      maxMessages: 16,
      fromStreamStart,
      logger,
      handle: async (message) => {
        seen.push((JSON.parse(StringCodec().decode(message.data)) as { id: string }).id);
        message.ack();
      },
    });
    // Waits for the expected count, or 2 s for a consumer that should read nothing.
    await until(async () => (seen.length >= expected ? true : undefined), 2000).catch(() => undefined);
    await consumer.stop();
    return seen;
  };

  it('reads what the stream holds when asked to start there, and only new events otherwise', async () => {
    const earlier = newEventId();
    const event = { id: earlier, name: 'sponsor_slot_activated', occurred_at: new Date().toISOString(), payload: {} };
    await nats.jetstream().publish(`${EVENT_SUBJECT_PREFIX}sponsor_slot_activated`, StringCodec().encode(JSON.stringify(event)));
    expect(await readBy('from_start', true, 1)).toEqual([earlier]);
    expect(await readBy('new_only', false, 1)).toEqual([]);
  });

  it('stops after the message in hand, leaving the buffered ones unacknowledged for later', async () => {
    const publish = () =>
      nats
        .jetstream()
        .publish(
          `${EVENT_SUBJECT_PREFIX}sponsor_slot_activated`,
          StringCodec().encode(JSON.stringify({ id: newEventId(), name: 'sponsor_slot_activated', payload: {} })),
        );
    for (let i = 0; i < 5; i++) await publish();
    let handled = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const consumer = await startDurableConsumer({
      nats,
      durable: 'stopping',
      eventName: 'sponsor_slot_activated',
      streamReplicas: 1,
      maxMessages: 16,
      fromStreamStart: true,
      logger,
      handle: async (message) => {
        handled++;
        await held;
        message.ack();
      },
    });
    await until(async () => (handled > 0 ? true : undefined), 5000);
    const stopped = consumer.stop();
    release();
    await stopped;
    expect(handled).toBe(1);
    const info = await (await nats.jetstreamManager()).consumers.info(EVENT_STREAM, 'stopping');
    expect(info.ack_floor.stream_seq).toBeLessThan(info.delivered.stream_seq);
  });
});
