import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MongoClient } from 'mongodb';
import { connect, StringCodec } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort, isAlive, spawnManaged, startFerretDb, startInfrastructure, startNats, type StartedServer } from '../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-infra-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('freePort', () => {
  it('returns distinct bindable ports', async () => {
    const [a, b] = await Promise.all([freePort(), freePort()]);
    expect(a).toBeGreaterThan(0);
    expect(b).not.toBe(a);
  });

  it('never hands out a port twice in one process, though the kernel offers closed ports again', async () => {
    // One at a time, each closed before the next: exactly the pattern that used to repeat ports.
    const ports: number[] = [];
    for (let index = 0; index < 200; index++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

describe('spawnManaged', () => {
  it('escalates to SIGKILL when SIGTERM is ignored, and stop is safe to repeat', async () => {
    const logFile = join(dir, 'stubborn.log');
    const child = await spawnManaged(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => console.log('ignored')); console.log('up'); setInterval(() => {}, 1000)"],
      {
        name: 'stubborn',
        logFile,
      },
    );
    await expect.poll(() => readFile(logFile, 'utf8'), { timeout: 5000 }).toContain('up');
    await child.stop(300);
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(child.pid)).toBe(false);
    await child.stop();
    expect(await readFile(logFile, 'utf8')).toContain('ignored');
  });

  it('rejects when the command does not exist', async () => {
    await expect(spawnManaged(join(dir, 'missing-binary'), [], { name: 'missing' })).rejects.toThrow(/missing: cannot start/);
  });
});

describe('FerretDB and NATS on free ports', () => {
  let ferretdb: StartedServer;
  let nats: StartedServer;

  beforeAll(async () => {
    // Assigned one by one so that afterAll stops whichever started when the other fails.
    const starting = [
      startFerretDb({ dataDir: join(dir, 'ferretdb'), logFile: join(dir, 'ferretdb.log'), ephemeral: true }).then(
        (server) => (ferretdb = server),
      ),
      startNats({ dataDir: join(dir, 'nats'), logFile: join(dir, 'nats.log') }).then((server) => (nats = server)),
    ];
    for (const result of await Promise.allSettled(starting)) if (result.status === 'rejected') throw result.reason;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ferretdb?.process.stop(), nats?.process.stop()]);
  });

  it('stores and reads a document', async () => {
    expect(ferretdb.url).toBe(`mongodb://127.0.0.1:${ferretdb.port}/`);
    const client = new MongoClient(ferretdb.url);
    try {
      const items = client.db('local_infra_test').collection<{ _id: string; n: number }>('items');
      await items.insertOne({ _id: 'a', n: 1 });
      expect(await items.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
    } finally {
      await client.close();
    }
  });

  it('mirrors each declared index so that an equality lookup is an index scan in PostgreSQL', async () => {
    const client = new MongoClient(ferretdb.url);
    try {
      const items = client.db('local_infra_test').collection<{ email: string; tenant: number }>('members');
      await items.createIndex({ tenant: 1, email: 1 }, { unique: true });
      await items.insertMany(Array.from({ length: 500 }, (_, index) => ({ email: `m${index}@example.test`, tenant: index % 5 })));
      // FerretDB answers with PostgreSQL's plan (EXPLAIN FORMAT JSON) under queryPlanner.Plan.
      const plan = JSON.stringify((await items.find({ email: 'm42@example.test' }).explain()).queryPlanner);
      expect(plan).toContain('Bitmap Index Scan');
      expect(plan).toMatch(/"Index Name":"members_[0-9a-f]+_[0-9a-f]{12}_gin"/);
      expect(plan).not.toContain('Seq Scan');
    } finally {
      await client.close();
    }
  });

  it('publishes to JetStream and reads the message back', async () => {
    expect(nats.url).toBe(`nats://127.0.0.1:${nats.port}`);
    const nc = await connect({ servers: nats.url });
    try {
      const codec = StringCodec();
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: 'LOCAL_INFRA_TEST', subjects: ['local.infra.>'] });
      const js = nc.jetstream();
      const ack = await js.publish('local.infra.hello', codec.encode('hi'), { msgID: 'm-1' });
      expect(ack.seq).toBe(1);
      const stored = await jsm.streams.getMessage('LOCAL_INFRA_TEST', { seq: 1 });
      expect(codec.decode(stored.data)).toBe('hi');
      expect(stored.header?.get('Nats-Msg-Id')).toBe('m-1');
    } finally {
      await nc.close();
    }
  });

  it('stops both servers by PID, PostgreSQL under FerretDB included', async () => {
    const postgresPid = Number((await readFile(join(dir, 'ferretdb', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(isAlive(postgresPid)).toBe(true);
    await Promise.all([ferretdb.process.stop(), nats.process.stop()]);
    expect(isAlive(ferretdb.process.pid)).toBe(false);
    expect(isAlive(postgresPid)).toBe(false);
    expect(isAlive(nats.process.pid)).toBe(false);
  });
});

describe('startFerretDb on a taken port', () => {
  it('reports the early exit instead of waiting for the deadline', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as AddressInfo;
    try {
      const started = Date.now();
      await expect(startFerretDb({ dataDir: join(dir, 'taken'), port })).rejects.toThrow(new RegExp(`ferretdb on port ${port} exited`));
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      blocker.close();
    }
  });
});

describe('startInfrastructure', () => {
  it('falls back to local binaries and stops them', async () => {
    const infra = await startInfrastructure({ dataDir: join(dir, 'infra'), env: { ...process.env, MASTHEAD_INFRA: 'local' } });
    expect(infra.kind).toBe('local');
    expect(infra.mongoUrl).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
    expect(infra.natsUrl).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    await infra.stop();
    const nc = connect({ servers: infra.natsUrl, reconnect: false, timeout: 1000 });
    await expect(nc).rejects.toThrow();
  }, 30_000);
});
