import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, type StartedServer } from '@masthead/local-infra';
import type { Connection } from 'mongoose';
import { AckPolicy, connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEventPublisher, EVENT_STREAM, outboxModel } from '../src/events/index.js';
import { createLogger } from '../src/logging/index.js';
import { connectMongo } from '../src/mongo/index.js';

const logger = createLogger({ name: 'events-test', level: 'silent' });
const passwordChanged = (userId: number) => ({ user_id: userId, initial: false, revoked_sessions: 0 });

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readSubjects(nats: NatsConnection, count: number): Promise<string[]> {
  const manager = await nats.jetstreamManager();
  const name = `reader${Date.now()}`;
  await manager.consumers.add(EVENT_STREAM, { durable_name: name, ack_policy: AckPolicy.Explicit });
  const consumer = await nats.jetstream().consumers.get(EVENT_STREAM, name);
  const messages = await consumer.fetch({ max_messages: count, expires: 2000 });
  const subjects: string[] = [];
  for await (const message of messages) {
    subjects.push(
      `${message.subject}:${(JSON.parse(StringCodec().decode(message.data)) as { payload: { user_id: number } }).payload.user_id}`,
    );
    message.ack();
  }
  return subjects;
}

describe('event publisher with an outbox', () => {
  let db: Connection;
  let dataDir: string;
  let server: StartedServer;

  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `events_${Date.now()}` });
    dataDir = await mkdtemp(join(tmpdir(), 'masthead-events-'));
    server = await startNats({ dataDir });
  });
  afterAll(async () => {
    await server?.process.stop();
    await db?.dropDatabase();
    await db?.close();
  });

  it('keeps an event that cannot be published now and delivers it once NATS is back, exactly once', async () => {
    const nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const publisher = await createEventPublisher({
      source: 'test',
      connection: db,
      nats,
      logger,
      retryIntervalMs: 200,
      ackTimeoutMs: 300,
    });
    const before = await publisher.publish({ name: 'user_profile_updated', payload: { user_id: 1, fields: ['first_name'] } });
    // Acknowledged by JetStream before publish returned: it never touched the outbox.
    expect(await outboxModel(db).findById(before.id).lean()).toBeNull();

    await server.process.stop();
    const during = await publisher.publish({ name: 'user_password_changed', payload: passwordChanged(2) });
    expect(await outboxModel(db).findById(during.id).lean()).not.toBeNull();
    // Queued behind the first at once, without waiting for an acknowledgement that cannot come.
    const started = Date.now();
    const queued = await publisher.publish({ name: 'user_password_changed', payload: passwordChanged(3) });
    expect(Date.now() - started).toBeLessThan(500);
    expect(await outboxModel(db).findById(queued.id).lean()).not.toBeNull();

    server = await startNats({ dataDir, port: server.port });
    await until(async () => ((await outboxModel(db).countDocuments()) === 0 ? true : undefined));
    await publisher.flush();

    const subjects = await readSubjects(nats, 10);
    expect(subjects).toEqual([
      'masthead.events.user_profile_updated:1',
      'masthead.events.user_password_changed:2',
      'masthead.events.user_password_changed:3',
    ]);
    await publisher.stop();
    await nats.close();
  });
});
