import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, type StartedServer } from '@masthead/local-infra';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, followConnection } from '../src/events/index.js';
import { until } from './until.js';

const reached = (count: () => number, wanted: number) => until(async () => (count() >= wanted ? true : undefined));

/** What the outbox publisher and the gateway's StreamSender learn of NATS coming and going. */
describe('followConnection', () => {
  let dataDir: string;
  let server: StartedServer;
  let nats: NatsConnection;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'masthead-follow-'));
    server = await startNats({ dataDir });
    nats = await connectNats(server.url, 'follow-connection-test');
  });
  afterAll(async () => {
    await nats?.close();
    await server?.process.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens once, then tells the state at once, at a disconnect and at the reconnect', async () => {
    const opened: NatsConnection[] = [];
    const states: boolean[] = [];
    followConnection(nats, { opened: (connection) => opened.push(connection), changed: (connected) => states.push(connected) });
    await reached(() => states.length, 1);
    expect(opened).toEqual([nats]);
    expect(states).toEqual([true]);

    await server.process.stop();
    await reached(() => states.length, 2);
    server = await startNats({ dataDir, port: server.port });
    await reached(() => states.length, 3);
    expect(states).toEqual([true, false, true]);
    expect(opened).toHaveLength(1);
  });

  it('counts a connection that never opens as down', async () => {
    const states: boolean[] = [];
    followConnection(Promise.reject(new Error('no server')), { changed: (connected) => states.push(connected) });
    await reached(() => states.length, 1);
    expect(states).toEqual([false]);
  });
});
