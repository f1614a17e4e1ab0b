import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { LookupAddress } from 'node:dns';
import type { DomainEvent } from '@masthead/core/events';
import { createLogger } from '@masthead/core/logging';
import { connectMongo } from '@masthead/core/mongo';
import { parseKeyRing } from '@masthead/core/secrets';
import { startWebhookReceiver, testInfra, type TestInfra, type WebhookReceiver } from '@masthead/service-testkit';
import type { Connection } from 'mongoose';
import { connect, type NatsConnection } from 'nats';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryRepository } from '../src/webhooks/delivery.repository.js';
import { attemptModel } from '../src/webhooks/delivery.schema.js';
import type { DestinationPolicy, Resolver } from '../src/webhooks/destination.js';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { EndpointRepository } from '../src/webhooks/endpoint.repository.js';
import { WebhookIngest } from '../src/webhooks/ingest.js';
import { httpWebhookSender } from '../src/webhooks/sender.js';
import { WebhookService } from '../src/webhooks/webhook.service.js';

const ring = parseKeyRing(`test:${Buffer.alloc(32, 7).toString('base64')}`);
const logger = createLogger({ name: 'webhook-destinations-test', level: 'silent' });
const PRODUCTION: DestinationPolicy = { allowLoopback: false };
const TEST_MODE: DestinationPolicy = { allowLoopback: true };
/** A public address (documentation of no one's receiver: never connected to by these tests). */
const PUBLIC_V4 = '93.184.215.14';

/**
 * A resolver the test plays: each name answers the addresses its list holds now (a rebinding
 * name changes them between configuration and delivery), and every question is counted.
 */
function playedDns(initial: Record<string, string[]>) {
  const answers = new Map(Object.entries(initial));
  const asked: string[] = [];
  const resolve: Resolver = (hostname, _options, callback) => {
    asked.push(hostname);
    const addresses = answers.get(hostname);
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    callback(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { resolve, asked, answer: (name: string, addresses: string[]) => answers.set(name, addresses) };
}

/** A TCP listener on loopback that only counts connections: whatever reaches it was connected to. */
async function connectionCounter(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, connections: () => sockets.length, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Outbound webhooks never reach private networks (docs/adr/0240): URLs are judged at
 * configuration and again at each delivery, against the addresses the connection actually uses;
 * the delivery log says success, an HTTP status, timeout or refused, nothing more.
 */
describe('webhook destinations', () => {
  let infra: TestInfra;
  let db: Connection;
  let nats: NatsConnection;
  let endpoints: EndpointRepository;
  let deliveries: DeliveryRepository;
  let ingest: WebhookIngest;
  const closers: Array<() => Promise<void>> = [];
  let resourceId = 5000;

  beforeAll(async () => {
    infra = await testInfra();
    nats = await connect({ servers: infra.natsUrl });
  });
  beforeEach(async () => {
    db = await connectMongo({ url: infra.mongoUrl, dbName: `webhook_dest_${randomUUID().slice(0, 8)}` });
    endpoints = new EndpointRepository(db);
    deliveries = new DeliveryRepository(db);
    await Promise.all([endpoints.ready(), deliveries.ready()]);
    ingest = new WebhookIngest({
      nats,
      endpoints,
      deliveries,
      logger,
      durablePrefix: 'unused_',
      ackWaitMs: 1000,
      streamReplicas: 1,
      now: () => new Date(),
      onRecorded: () => undefined,
    });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await db.dropDatabase();
    await db.close();
  });
  afterAll(async () => {
    await nats?.close();
    await infra?.stop();
  });

  const service = (policy: DestinationPolicy, resolve?: Resolver) =>
    new WebhookService({ endpoints, deliveries, ring, policy, ...(resolve ? { resolve } : {}), now: () => new Date() });

  const create = (policy: DestinationPolicy, url: string, resolve?: Resolver) =>
    service(policy, resolve).create({ resourceId: ++resourceId, url, eventTypes: [], description: '' });

  const dispatcher = (policy: DestinationPolicy, resolve?: Resolver, timeoutMs = 2000) =>
    new WebhookDispatcher({
      endpoints,
      deliveries,
      ring,
      send: httpWebhookSender({ timeoutMs, policy, ...(resolve ? { resolve } : {}) }),
      now: () => new Date(),
      leaseMs: 60_000,
      concurrency: 2,
      logger,
    });

  const login = (resource: number): DomainEvent<'user_login'> => ({
    id: randomUUID(),
    name: 'user_login',
    source: 'identity',
    occurred_at: new Date().toISOString(),
    resource_id: resource,
    payload: { user_id: 7, session_id: 3, source_type: null, guest_session: null, ip: '10.0.0.1', user_agent: 'ua' },
  });

  /** One event for the endpoint, one delivery pass; the attempt as the log shows it. */
  async function deliverOnce(endpoint: { _id: number; resource_id: number }, sender: WebhookDispatcher) {
    const event = login(endpoint.resource_id);
    expect(await ingest.record(event)).toBe(1);
    expect(await sender.deliverDue()).toBe(1);
    const attempt = await attemptModel(db)
      .findOne({ delivery_id: `${endpoint._id}:${event.id}` })
      .lean();
    return { outcome: attempt?.outcome, status_code: attempt?.status_code, error: attempt?.error };
  }

  const refusedAddress = {
    status: 400,
    code: 'invalid_url',
    description: 'url: the host is or resolves to a private, loopback, link-local or reserved address',
  };

  it('refuses private, link-local, unique-local, CGNAT, multicast, reserved and metadata hosts in every spelling, always', async () => {
    const alwaysRefused = [
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://METADATA.google.internal./computeMetadata/v1/',
      'https://10.0.0.5/hooks',
      'https://172.16.3.4/hooks',
      'https://192.168.1.1/hooks',
      'https://100.64.0.1/hooks',
      'https://100.100.100.200/latest/meta-data/',
      'https://224.0.0.1/hooks',
      'https://240.0.0.1/hooks',
      'https://255.255.255.255/hooks',
      'https://0.0.0.0/hooks',
      'https://192.0.2.10/hooks',
      'https://[fe80::1]/hooks',
      'https://[fc00::1]/hooks',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://[ff02::1]/hooks',
      'https://[::]/hooks',
      'https://[::ffff:169.254.169.254]/hooks',
      'https://[::ffff:a9fe:a9fe]/hooks',
      'https://[::ffff:10.0.0.1]/hooks',
      'https://[64:ff9b::a9fe:a9fe]/hooks',
      'https://[2002:a9fe:a9fe::1]/hooks',
      'https://[::a9fe:a9fe]/hooks',
      'https://[2001:db8::1]/hooks',
      // Decimal, hex, octal and short spellings of 169.254.169.254 and 10.0.0.1.
      'https://2852039166/latest/meta-data/',
      'https://0xa9fea9fe/latest/meta-data/',
      'https://0251.0376.0251.0376/latest/meta-data/',
      'https://0xa9.0xfe.0xa9.0xfe/latest/meta-data/',
      'https://10.1/hooks',
      'https://167772161/hooks',
    ];
    for (const policy of [PRODUCTION, TEST_MODE]) {
      for (const url of alwaysRefused) {
        await expect(create(policy, url), url).rejects.toMatchObject(refusedAddress);
      }
    }
    expect(await db.collection('webhook_endpoints').countDocuments()).toBe(0);
  });

  it('refuses loopback hosts in production, spelled any way, and a name that resolves to one; allows them in test mode', async () => {
    const loopback = [
      'https://127.0.0.1:50051/',
      'https://127.1:50051/',
      'https://2130706433/',
      'https://0x7f000001/',
      'https://0x7f.0.0.1/',
      'https://0177.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
    ];
    for (const url of loopback) {
      await expect(create(PRODUCTION, url), url).rejects.toMatchObject(refusedAddress);
      await expect(create(TEST_MODE, url), url).resolves.toBeTruthy();
    }
    const dns = playedDns({ 'hooks.example.test': ['127.0.0.1'], 'mixed.example.test': [PUBLIC_V4, '10.0.0.8'] });
    await expect(create(PRODUCTION, 'https://hooks.example.test/in', dns.resolve)).rejects.toMatchObject(refusedAddress);
    // One private answer among public ones is enough to refuse the name.
    await expect(create(PRODUCTION, 'https://mixed.example.test/in', dns.resolve)).rejects.toMatchObject(refusedAddress);
    expect(dns.asked).toEqual(['hooks.example.test', 'mixed.example.test']);
  });

  it('accepts public hosts, and a name that does not resolve yet (each delivery judges it again)', async () => {
    const dns = playedDns({ 'hooks.example.test': [PUBLIC_V4, '2606:4700:4700::1111'] });
    for (const url of [
      `https://${PUBLIC_V4}/hooks`,
      'https://[2606:4700:4700::1111]/hooks',
      'https://hooks.example.test/hooks',
      'https://not-yet.example.test/hooks',
    ]) {
      const { endpoint } = await create(PRODUCTION, url, dns.resolve);
      expect(endpoint.url).toBe(url);
    }
    await expect(create(PRODUCTION, 'http://hooks.example.test/hooks', dns.resolve)).rejects.toMatchObject({
      description: 'url: https is required',
    });
  });

  it('refuses at delivery an endpoint whose address is not allowed now, without connecting (production rules)', async () => {
    // Configured where loopback was allowed (or before this rule existed), delivered under production rules.
    const counter = await connectionCounter();
    closers.push(counter.close);
    const { endpoint } = await create(TEST_MODE, `https://127.0.0.1:${counter.port}/hooks`);
    expect(await deliverOnce(endpoint, dispatcher(PRODUCTION))).toEqual({ outcome: 'failed', status_code: null, error: 'refused' });
    expect(counter.connections()).toBe(0);
  });

  it('resolves again at delivery and connects only to the address it checked: a rebinding name is refused', async () => {
    const counter = await connectionCounter();
    closers.push(counter.close);
    const dns = playedDns({ 'rebind.example.test': [PUBLIC_V4] });
    const { endpoint } = await create(PRODUCTION, `https://rebind.example.test:${counter.port}/hooks`, dns.resolve);
    // The name now answers loopback, then a private address: each delivery asks, and refuses.
    dns.answer('rebind.example.test', ['127.0.0.1']);
    expect(await deliverOnce(endpoint, dispatcher(PRODUCTION, dns.resolve))).toEqual({
      outcome: 'failed',
      status_code: null,
      error: 'refused',
    });
    dns.answer('rebind.example.test', ['10.0.0.7']);
    expect(await deliverOnce(endpoint, dispatcher(PRODUCTION, dns.resolve))).toEqual({
      outcome: 'failed',
      status_code: null,
      error: 'refused',
    });
    expect(dns.asked).toEqual(['rebind.example.test', 'rebind.example.test', 'rebind.example.test']);
    expect(counter.connections()).toBe(0);
  });

  it('in test mode, a loopback name reaches the address its lookup answered, and a private answer beside it refuses the name', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver(() => ({ status: 204 }));
    closers.push(receiver.close);
    const port = new URL(receiver.url).port;
    const dns = playedDns({ 'hooks.localhost': ['127.0.0.1'] });
    const { endpoint } = await create(TEST_MODE, `http://hooks.localhost:${port}/hooks`, dns.resolve);
    expect(await deliverOnce(endpoint, dispatcher(TEST_MODE, dns.resolve))).toEqual({
      outcome: 'succeeded',
      status_code: 204,
      error: null,
    });
    expect(receiver.received).toHaveLength(1);
    dns.answer('hooks.localhost', ['127.0.0.1', '192.168.0.10']);
    expect(await deliverOnce(endpoint, dispatcher(TEST_MODE, dns.resolve))).toEqual({
      outcome: 'failed',
      status_code: null,
      error: 'refused',
    });
    expect(receiver.received).toHaveLength(1);
  });

  it('logs only success, the HTTP status, timeout or refused: a closed port and a wrong protocol look the same', async () => {
    const failing = await startWebhookReceiver(() => ({ status: 503 }));
    const silent = await startWebhookReceiver(() => ({ hold: new Promise(() => undefined) }));
    const counter = await connectionCounter();
    closers.push(failing.close, counter.close, async () => silent.close().catch(() => undefined));
    const closed = await connectionCounter();
    await closed.close();
    const answers = [];
    for (const url of [
      failing.url,
      silent.url,
      // Nothing listens there any more.
      `http://127.0.0.1:${closed.port}/hooks`,
      // Something listens, but it speaks no TLS (it drops every connection).
      `https://127.0.0.1:${counter.port}/hooks`,
    ]) {
      const { endpoint } = await create(TEST_MODE, url);
      answers.push(await deliverOnce(endpoint, dispatcher(TEST_MODE, undefined, 500)));
    }
    expect(answers).toEqual([
      { outcome: 'failed', status_code: 503, error: 'HTTP 503' },
      { outcome: 'failed', status_code: null, error: 'timeout' },
      { outcome: 'failed', status_code: null, error: 'refused' },
      { outcome: 'failed', status_code: null, error: 'refused' },
    ]);
    expect(counter.connections()).toBe(1);
  });
});
