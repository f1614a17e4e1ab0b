import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, type StartedServer } from '@masthead/local-infra';
import type { Connection } from 'mongoose';
import { AckPolicy, connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createEventPublisher,
  ensureEventStream,
  EVENT_RETENTION_MS,
  EVENT_STREAM,
  MARK_RETENTION_MS,
  markedBy,
  markFields,
  newEventId,
  outboxModel,
  withMarks,
  WITNESSED_EVENTS_FIELD,
} from '../src/events/index.js';
import { createLogger } from '../src/logging/index.js';
import { connectMongo } from '../src/mongo/index.js';
import { until } from './until.js';

const logger = createLogger({ name: 'events-test', level: 'silent' });
const passwordChanged = (userId: number) => ({ user_id: userId, initial: false, revoked_sessions: 0 });

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
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `events_${Date.now()}`, monitorCommands: true });
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

  it('publishes a prepared event whose write committed, also after a crash, and never one whose write did not', async () => {
    const nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const options = { source: 'test', connection: db, nats, logger, retryIntervalMs: 100, preparedGraceMs: 300 };
    const publisher = await createEventPublisher(options);
    const rows = db.collection('witnesses');
    const prepare = (userId: number) =>
      publisher.prepare(
        { name: 'user_profile_updated', payload: { user_id: userId, fields: ['first_name'] } },
        { collection: 'witnesses', id: userId },
      );

    // The whole path: prepared, written with its mark, committed; the outbox record goes.
    const committed = await prepare(11);
    await rows.insertOne({ _id: 11 as never, ...markFields(committed) });
    await committed.commit();
    // Cleared within the settle window, together with other commits' (ADR 0193).
    await until(async () => ((await outboxModel(db).findById(committed.event.id).lean()) === null ? true : undefined));

    // A crash after the write: the relay finds the mark once the grace has passed.
    await rows.insertOne({ _id: 12 as never });
    const crashedAfterWrite = await prepare(12);
    await rows.updateOne({ _id: 12 as never }, markedBy([crashedAfterWrite]));
    // A crash before the write: no mark, so the event is dropped, never published.
    const crashedBeforeWrite = await prepare(13);
    // Prepared before marks moved (ADR 0180's array): still judged by its mark.
    await rows.insertOne({ _id: 14 as never });
    const preparedByAnEarlierVersion = await prepare(14);
    await rows.updateOne({ _id: 14 as never }, { $addToSet: { _event_marks: preparedByAnEarlierVersion.event.id } });
    await until(async () => ((await outboxModel(db).countDocuments()) === 0 ? true : undefined));

    const events = (await readSubjects(nats, 10)).filter((subject) => /:1[1234]$/.test(subject));
    expect(events).toEqual([
      'masthead.events.user_profile_updated:11',
      'masthead.events.user_profile_updated:12',
      'masthead.events.user_profile_updated:14',
    ]);
    expect(crashedBeforeWrite.event.id).not.toBe(crashedAfterWrite.event.id);
    await publisher.stop();
    await nats.close();
  });

  it('clears the outbox records of concurrent commits with one delete statement, and never writes their witnesses', async () => {
    const nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    // A window far beyond the test: only stop() settles, so every commit is in one batch.
    const options = { source: 'test', connection: db, nats, logger, retryIntervalMs: 600_000, settleWindowMs: 600_000 };
    const publisher = await createEventPublisher(options);
    const rows = db.collection('batch_witnesses');
    const users = [41, 42, 43, 44, 45];
    const committed = await Promise.all(
      users.map(async (userId) => {
        const prepared = await publisher.prepare(
          { name: 'user_profile_updated', payload: { user_id: userId, fields: ['first_name'] } },
          { collection: 'batch_witnesses', id: userId },
        );
        await rows.insertOne({ _id: userId as never, ...markFields(prepared) });
        await prepared.commit();
        return prepared.event.id;
      }),
    );
    expect(await outboxModel(db).countDocuments({ _id: { $in: committed } })).toBe(5);

    const commands: string[] = [];
    const listen = (event: { commandName: string; command: Record<string, unknown> }) => {
      if (event.commandName !== 'delete' && event.commandName !== 'update') return;
      // Statements of the command: the five records share a bucket, so one (ADR 0200).
      const statements = (event.command['deletes'] ?? event.command['updates']) as unknown[];
      commands.push(`${event.commandName} ${String(event.command[event.commandName])} ×${statements.length}`);
    };
    db.getClient().on('commandStarted', listen);
    await publisher.stop();
    db.getClient().off('commandStarted', listen);
    // A write of its own on the witness could undo a concurrent one on FerretDB (ADR 0198).
    expect(commands).toEqual(['delete outbox ×1']);
    expect(await outboxModel(db).countDocuments({ _id: { $in: committed } })).toBe(0);
    const subjects = (await readSubjects(nats, 20)).filter((subject) => /:4\d$/.test(subject));
    expect(subjects.sort()).toEqual(users.map((user) => `masthead.events.user_profile_updated:${user}`));
    await nats.close();
  });

  it('keeps marks after publishing; a marking write drops the ones older than the retention, in the same operation', async () => {
    const publisher = await createEventPublisher({
      source: 'test',
      connection: db,
      nats: new Promise(() => undefined),
      logger,
      retryIntervalMs: 600_000,
    });
    const rows = db.collection('pruned_witnesses');
    const now = Date.now();
    const marks = { old: new Date(now - MARK_RETENTION_MS - 60_000), recent: new Date(now - 60_000) };
    await rows.insertOne({ _id: 51 as never, name: 'before', [WITNESSED_EVENTS_FIELD]: marks });
    const asRead = await rows.findOne({ _id: 51 as never });
    const prepared = await publisher.prepare(
      { name: 'user_profile_updated', payload: { user_id: 51, fields: ['first_name'] } },
      { collection: 'pruned_witnesses', id: 51 },
    );
    await rows.updateOne({ _id: 51 as never }, withMarks({ $set: { name: 'after' } }, markedBy([prepared], asRead)));
    const row = await rows.findOne({ _id: 51 as never });
    expect(row?.['name']).toBe('after');
    expect(Object.keys(row?.[WITNESSED_EVENTS_FIELD] as object).sort()).toEqual([prepared.event.id, 'recent'].sort());
    // Its write is done with: the next tests expect an empty outbox.
    await outboxModel(db).deleteOne({ _id: prepared.event.id });
    await publisher.stop();
  });

  it('drains the outbox by itself within seconds of NATS coming back', async () => {
    const nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    // A relay timer far beyond the test: only the reconnection can drain the outbox in time.
    const publisher = await createEventPublisher({ source: 'test', connection: db, nats, logger, retryIntervalMs: 600_000 });
    await server.process.stop();
    const kept = [];
    // More than one relay window (64 publishes in flight): still in order.
    const users = Array.from({ length: 150 }, (_, index) => 200 + index);
    for (const user of users) {
      kept.push(await publisher.publish({ name: 'user_password_changed', payload: passwordChanged(user) }));
    }
    expect(await outboxModel(db).countDocuments({ _id: { $in: kept.map((event) => event.id) } })).toBe(users.length);

    server = await startNats({ dataDir, port: server.port });
    const started = Date.now();
    await until(async () => ((await outboxModel(db).countDocuments()) === 0 ? true : undefined), 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    const subjects = (await readSubjects(nats, 200)).filter((subject) => /:[23]\d\d$/.test(subject));
    expect(subjects).toEqual(users.map((user) => `masthead.events.user_password_changed:${user}`));
    await publisher.stop();
    await nats.close();
  });

  it('starts without NATS: events wait in the outbox until the first connection, then go out', async () => {
    await server.process.stop();
    const connecting = connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100, waitOnFirstConnect: true });
    const publisher = await createEventPublisher({ source: 'test', connection: db, nats: connecting, logger, retryIntervalMs: 600_000 });
    const early = await publisher.publish({ name: 'user_password_changed', payload: passwordChanged(31) });
    expect(await outboxModel(db).findById(early.id).lean()).not.toBeNull();

    server = await startNats({ dataDir, port: server.port });
    await until(async () => ((await outboxModel(db).countDocuments()) === 0 ? true : undefined), 10_000);
    const nats = await connecting;
    expect((await readSubjects(nats, 400)).filter((subject) => subject.endsWith(':31'))).toEqual([
      'masthead.events.user_password_changed:31',
    ]);
    await publisher.stop();
    await nats.close();
  });

  it('passes rarely while nothing of its own waits, and relays what another process left at its idle sweep', async () => {
    const nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const publisher = await createEventPublisher({ source: 'test', connection: db, nats, logger, retryIntervalMs: 50, idleSweepMs: 4_000 });
    await publisher.flush();
    // The drain at connection has ended (it found the outbox empty).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // A record a crashed process queued: ready, never delivered.
    const id = newEventId();
    const event = { id, name: 'user_password_changed', source: 'gone', occurred_at: new Date().toISOString(), resource_id: null };
    await outboxModel(db).create({
      _id: id,
      subject: 'masthead.events.user_password_changed',
      payload: JSON.stringify({ ...event, payload: passwordChanged(51) }),
      created_at: new Date(),
      attempts: 0,
    });
    const left = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Ten retry intervals went by without a pass.
    expect(await outboxModel(db).findById(id).lean()).not.toBeNull();
    await until(async () => ((await outboxModel(db).findById(id).lean()) === null ? true : undefined), 10_000);
    expect(Date.now() - left).toBeGreaterThan(1_000);
    expect((await readSubjects(nats, 400)).filter((subject) => subject.endsWith(':51'))).toEqual([
      'masthead.events.user_password_changed:51',
    ]);
    await publisher.stop();
    await nats.close();
  });

  it('keeps events for two weeks, also in a stream an older version created without an age limit', async () => {
    const nats = await connect({ servers: server.url });
    const manager = await nats.jetstreamManager();
    await ensureEventStream(nats);
    const maxAge = async () => (await manager.streams.info(EVENT_STREAM)).config.max_age;
    expect(await maxAge()).toBe(EVENT_RETENTION_MS * 1_000_000);
    await manager.streams.update(EVENT_STREAM, { ...(await manager.streams.info(EVENT_STREAM)).config, max_age: 0 });
    expect(await maxAge()).toBe(0);
    await ensureEventStream(nats);
    expect(await maxAge()).toBe(EVENT_RETENTION_MS * 1_000_000);
    await nats.close();
  });
});
