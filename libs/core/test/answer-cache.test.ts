import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerCache,
  createServiceClient,
  startGrpcServer,
  type RunningGrpcServer,
  type ServiceClient,
  type ServiceRegistration,
} from '../src/grpc/index.js';
import { createLogger } from '../src/logging/index.js';

/** A JSON method that counts how often the server encodes an answer. */
const encoded: unknown[] = [];
const LOOKUP = {
  lookup: {
    path: '/test.Lookup/Lookup',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: { key: string }) => Buffer.from(JSON.stringify(value)),
    requestDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString('utf8')) as { key: string },
    responseSerialize: (value: { key: string; title: string }) => {
      encoded.push(value);
      return Buffer.from(JSON.stringify(value));
    },
    responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString('utf8')) as { key: string; title: string },
  },
} as const;

describe('answers built from a cached value', () => {
  const logger = createLogger({
    name: 'answer-cache-test',
    level: 'silent',
    destination: new Writable({ write: (_c, _e, done) => done() }),
  });
  // A cache of the service: the same object on every hit, until it is replaced.
  const cached = new Map<string, { key: string; name: string }>();
  const built: string[] = [];
  const answerOf = answerCache((view: { key: string; name: string }) => {
    built.push(view.key);
    return { key: view.key, title: view.name.toUpperCase() };
  });
  let server: RunningGrpcServer;
  let client: ServiceClient<typeof LOOKUP>;

  beforeAll(async () => {
    const lookup: ServiceRegistration<typeof LOOKUP> = {
      name: 'test.Lookup',
      definition: LOOKUP,
      implementation: {
        lookup: async ({ key }) => (key === 'fresh' ? { key, title: 'FRESH' } : answerOf(cached.get(key)!)),
      },
    };
    server = await startGrpcServer({ listen: '127.0.0.1:0', logger, services: [lookup] });
    client = createServiceClient(LOOKUP, `127.0.0.1:${server.port}`, { defaultDeadlineMs: 5000 });
  });
  afterAll(async () => {
    client.close();
    await server.stop(100);
  });

  it('are built and encoded once per cached value, and again once the value is replaced', async () => {
    cached.set('a', { key: 'a', name: 'first' });
    const first = await Promise.all([client.lookup({ key: 'a' }), client.lookup({ key: 'a' }), client.lookup({ key: 'a' })]);
    cached.set('a', { key: 'a', name: 'second' });
    const second = await client.lookup({ key: 'a' });
    expect([...first, second]).toEqual([
      { key: 'a', title: 'FIRST' },
      { key: 'a', title: 'FIRST' },
      { key: 'a', title: 'FIRST' },
      { key: 'a', title: 'SECOND' },
    ]);
    expect(built).toEqual(['a', 'a']);
    expect(encoded).toEqual([
      { key: 'a', title: 'FIRST' },
      { key: 'a', title: 'SECOND' },
    ]);
  });

  it('gives a shared call the object an earlier one got for the same bytes, and decodes other bytes anew', async () => {
    cached.set('b', { key: 'b', name: 'one' });
    const first = await client.lookup({ key: 'b' }, { shared: true });
    const again = await client.lookup({ key: 'b' }, { shared: true });
    const unshared = await client.lookup({ key: 'b' });
    cached.set('b', { key: 'b', name: 'two' });
    const changed = await client.lookup({ key: 'b' }, { shared: true });
    expect(again).toBe(first);
    expect(unshared).not.toBe(first);
    expect([first, unshared, changed]).toEqual([
      { key: 'b', title: 'ONE' },
      { key: 'b', title: 'ONE' },
      { key: 'b', title: 'TWO' },
    ]);
  });

  it('leaves every other answer encoded per call', async () => {
    encoded.length = 0;
    expect(await client.lookup({ key: 'fresh' })).toEqual({ key: 'fresh', title: 'FRESH' });
    expect(await client.lookup({ key: 'fresh' })).toEqual({ key: 'fresh', title: 'FRESH' });
    expect(encoded).toHaveLength(2);
  });
});
