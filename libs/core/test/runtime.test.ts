import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNats } from '@masthead/local-infra';
import { describe, expect, inject, it } from 'vitest';
import { outboxModel } from '../src/events/index.js';
import { createLogger } from '../src/logging/index.js';
import { openServiceRuntime } from '../src/service/index.js';
import { until } from './until.js';

/** The process runtime of every service (docs/adr/0182). */
describe('service runtime', () => {
  it('opens while NATS is down: events wait in the outbox and go out once NATS comes', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const config = {
      LOG_LEVEL: 'silent',
      GRPC_LISTEN: '127.0.0.1:0',
      MONGO_URL: inject('mongoUrl'),
      MONGO_DB_PREFIX: `runtime_${Date.now()}_`,
      NATS_URL: `nats://127.0.0.1:${port}`,
      OUTBOX_RETRY_MS: 200,
      OUTBOX_PREPARED_GRACE_MS: 30_000,
      METRICS_PORT: 0,
      METRICS_HOST: '127.0.0.1',
      EVENT_STREAM_REPLICAS: 1,
    };
    // Nothing listens on the port: the runtime opens anyway (a service restarted during an
    // outage must serve), with the connection still being made.
    const runtime = await openServiceRuntime('identity', config, createLogger({ name: 'runtime-test', level: 'silent' }));
    const event = await runtime.events.publish({
      name: 'user_password_changed',
      payload: { user_id: 1, initial: false, revoked_sessions: 0 },
    });
    expect(await outboxModel(runtime.db).findById(event.id).lean()).not.toBeNull();

    const nats = await startNats({ dataDir: await mkdtemp(join(tmpdir(), 'masthead-runtime-')), port });
    try {
      await until(async () => ((await outboxModel(runtime.db).countDocuments()) === 0 ? true : undefined));
      await runtime.events.stop();
      await (await runtime.nats).close();
      await runtime.db.close();
    } finally {
      await nats.process.stop();
    }
  });
});
