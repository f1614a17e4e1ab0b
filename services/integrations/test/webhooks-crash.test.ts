import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@masthead/core/clients';
import { EVENT_STREAM, EVENT_SUBJECT_PREFIX, ensureEventStream, type DomainEvent } from '@masthead/core/events';
import { checkHealth } from '@masthead/core/grpc';
import { connectMongo } from '@masthead/core/mongo';
import { freePort, spawnManaged, type ManagedProcess } from '@masthead/local-infra';
import { startWebhookReceiver, testInfra, verifyWebhook, type TestInfra, type WebhookReceiver } from '@masthead/service-testkit';
import type { Connection } from 'mongoose';
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestConsumerName } from '../src/webhooks/ingest.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const EVENTS_PER_ROUND = 40;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * At least once across crashes: the delivering process (integrations' real entry point, as a
 * child process) is killed with SIGKILL mid-delivery and mid-ingest; the processes started after
 * it deliver every event, duplicates only with the same webhook-id and body.
 */
describe('webhook delivery survives kill -9', () => {
  let infra: TestInfra;
  let nats: NatsConnection;
  let db: Connection;
  let receiver: WebhookReceiver;
  let logDir: string;
  const children: ManagedProcess[] = [];
  const prefix = `t${randomUUID().slice(0, 8)}_`;
  // Far from the small IDs other test files' stacks use on the run's shared stream.
  const resourceId = 700_000 + Math.floor(Math.random() * 100_000);
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    infra = await testInfra();
    nats = await connect({ servers: infra.natsUrl });
    await ensureEventStream(nats);
    db = await connectMongo({ url: infra.mongoUrl, dbName: `${prefix}integrations` });
    logDir = await mkdtemp(join(tmpdir(), 'masthead-webhooks-crash-'));
    // A slow endpoint: a batch is always in flight when the process dies.
    receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 300 }));
    env = {
      PATH: process.env['PATH'],
      MASTHEAD_ENV: 'test',
      LOG_LEVEL: 'warn',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: prefix,
      NATS_URL: infra.natsUrl,
      GRPC_LISTEN: `127.0.0.1:${await freePort()}`,
      OUTBOX_RETRY_MS: '500',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_LEASE_MS: '2000',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_ACK_WAIT_MS: '2000',
      WEBHOOK_CONCURRENCY: '4',
    };
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => child.stop()));
    await receiver?.close();
    await nats?.close();
    await db?.dropDatabase();
    await db?.close();
    await infra?.stop();
    if (logDir) await rm(logDir, { recursive: true, force: true });
  });

  /** The real process entry, killed with SIGKILL by `stop()`. */
  async function startDeliverer(): Promise<ManagedProcess> {
    const child = await spawnManaged(process.execPath, [MAIN], {
      name: 'integrations',
      env,
      stopSignal: 'SIGKILL',
      logFile: join(logDir, `integrations-${children.length}.log`),
    });
    children.push(child);
    await until(async () => ((await checkHealth(env['GRPC_LISTEN']!, 500)) ? true : undefined), 30_000, 'integrations healthy');
    // Its durable consumer of sign-ins exists from now on (events before it are not its business).
    const manager = await nats.jetstreamManager();
    await until(async () => manager.consumers.info(EVENT_STREAM, ingestConsumerName(prefix, 'user_login')), 30_000, 'webhook consumer');
    return child;
  }

  async function kill(child: ManagedProcess): Promise<void> {
    await child.stop();
    expect((await child.exited).signal).toBe('SIGKILL');
  }

  async function publishLogins(count: number): Promise<string[]> {
    const jetstream = nats.jetstream();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const event: DomainEvent<'user_login'> = {
        id: randomUUID(),
        name: 'user_login',
        source: 'identity',
        occurred_at: new Date().toISOString(),
        resource_id: resourceId,
        payload: { user_id: i + 1, session_id: i + 1, source_type: null, guest_session: null, ip: null, user_agent: null },
      };
      await jetstream.publish(`${EVENT_SUBJECT_PREFIX}user_login`, StringCodec().encode(JSON.stringify(event)), { msgID: event.id });
      ids.push(`msg_${event.id.replace(/-/g, '')}`);
    }
    return ids;
  }

  const receivedIds = () => new Set(receiver.received.map((request) => String(request.headers['webhook-id'])));

  it(
    'loses nothing and duplicates only with the same webhook-id when the deliverer is killed mid-batch',
    { timeout: 180_000 },
    async () => {
      const first = await startDeliverer();
      const client = createClient('webhooks', { integrations: env['GRPC_LISTEN']! }, { defaultDeadlineMs: 5000 });
      const { endpoint, secret } = await client.createWebhookEndpoint({
        resourceId,
        url: receiver.url,
        eventTypes: ['member.logged_in'],
        description: 'crash test',
      });
      client.close();

      // Round 1: killed while requests are in flight.
      const round1 = await publishLogins(EVENTS_PER_ROUND);
      await until(async () => (receiver.received.length >= 6 ? true : undefined), 30_000, 'first deliveries');
      await kill(first);
      const second = await startDeliverer();

      // Round 2: killed right after the events were published, while it reads them from the stream.
      const round2 = await publishLogins(EVENTS_PER_ROUND);
      await kill(second);
      await startDeliverer();

      const expected = new Set([...round1, ...round2]);
      await until(async () => (receivedIds().size >= expected.size ? true : undefined), 90_000, 'every delivery');
      expect(receivedIds()).toEqual(expected);

      // Every request verifies; a repeat carries the same webhook-id and the same body.
      const bodyById = new Map<string, string>();
      for (const request of receiver.received) {
        expect(verifyWebhook(secret, request).type).toBe('member.logged_in');
        const id = String(request.headers['webhook-id']);
        expect(bodyById.get(id) ?? request.body).toBe(request.body);
        bodyById.set(id, request.body);
      }
      const deliveries = await db.collection('webhook_deliveries').find({ endpoint_id: endpoint!.id }).toArray();
      expect(deliveries).toHaveLength(expected.size);
      await until(
        async () =>
          (await db.collection('webhook_deliveries').countDocuments({ endpoint_id: endpoint!.id, status: 'delivered' })) === expected.size
            ? true
            : undefined,
        30_000,
        'every delivery recorded as delivered',
      );
      // The kill did hit requests in flight: their attempts were abandoned and sent again.
      expect(
        await db.collection('webhook_attempts').countDocuments({ endpoint_id: endpoint!.id, outcome: 'abandoned' }),
      ).toBeGreaterThanOrEqual(1);
    },
  );
});
