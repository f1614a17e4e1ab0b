import { randomUUID } from 'node:crypto';
import { checkHealth, createServiceClient, type ServiceClient, type UnaryServiceDefinition } from '@masthead/core/grpc';
import type { RunningService } from '@masthead/core/service';
import mongoose, { type Connection } from 'mongoose';
import { expect } from 'vitest';
import { testInfra, type TestInfra } from './infra.js';

export interface ServiceHarnessOptions<Def> {
  /** The service name; its database is `<prefix><service>`. */
  service: string;
  definition: Def;
  /** Starts the service from an environment (its `load…Config` plus `start…Service`). */
  start: (env: NodeJS.ProcessEnv) => Promise<RunningService>;
  env?: Record<string, string>;
}

export interface ServiceHarness<Def> {
  client: ServiceClient<Def>;
  address: string;
  prefix: string;
  infra: TestInfra;
  /** The service's own database, for arranging rows no API writes yet and reading effects. */
  db: Connection;
  /** Registers a teardown step; they run in reverse order in `stop`. */
  onStop(cleanup: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

/**
 * One service in-process on 127.0.0.1:0 over real FerretDB (or MongoDB) and NATS, with a fresh
 * database prefix. `stop` always tears everything down, even after a failed start.
 */
export async function startServiceHarness<Def extends UnaryServiceDefinition>(
  options: ServiceHarnessOptions<Def>,
): Promise<ServiceHarness<Def>> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const infra = await testInfra();
    cleanups.push(() => infra.stop());
    const prefix = `t${randomUUID().slice(0, 8)}_`;
    const service = await options.start({
      GRPC_LISTEN: '127.0.0.1:0',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: prefix,
      NATS_URL: infra.natsUrl,
      LOG_LEVEL: 'silent',
      OUTBOX_RETRY_MS: '200',
      // No metrics listener: its default port would be shared by every service under test.
      METRICS_PORT: '0',
      ...options.env,
    });
    cleanups.push(() => service.stop());
    const address = `127.0.0.1:${service.port}`;
    const client = createServiceClient(options.definition, address, { defaultDeadlineMs: 5000 });
    cleanups.push(async () => client.close());
    const db = await mongoose.createConnection(infra.mongoUrl, { dbName: `${prefix}${options.service}` }).asPromise();
    cleanups.push(() => db.close());
    return { client, address, prefix, infra, db, onStop: (cleanup) => cleanups.push(cleanup), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A service serves health over its own database and event publisher, then stops cleanly. */
export async function expectServiceLifecycle<Def extends UnaryServiceDefinition>(harness: ServiceHarness<Def>): Promise<void> {
  expect(await checkHealth(harness.address)).toBe(true);
  // The event publisher's outbox lives in this service's own database.
  await expect
    .poll(async () => (await harness.db.listCollections()).map((collection) => collection.name), { timeout: 10_000 })
    .toContain('outbox');
  await harness.stop();
  expect(await checkHealth(harness.address, 500)).toBe(false);
}
