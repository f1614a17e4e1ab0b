import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@masthead/core/events';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { CatalogServiceService } from '@masthead/proto/catalog';
import mongoose, { type Connection } from 'mongoose';
import { connect, type NatsConnection } from 'nats';
import { expect } from 'vitest';
import { loadCatalogConfig, startCatalogService } from '../../src/app.js';
import { recordEvents } from './events.js';
import { testInfra } from './infra.js';

export interface CatalogHarness {
  client: ServiceClient<typeof CatalogServiceService>;
  /** The service's own database, for arranging rows a test cannot create through the API. */
  db: Connection;
  /** Every event published since the harness started, in arrival order. */
  events: DomainEvent[];
  /** Every event so far, once the outbox is empty and NATS has delivered what it acknowledged. */
  settledEvents(): Promise<DomainEvent[]>;
  stop(): Promise<void>;
}

/**
 * The catalog service in-process on 127.0.0.1:0 over real FerretDB (or MongoDB) and NATS, with
 * a fresh database prefix for this file. `stop` always tears everything down.
 */
export async function startCatalogHarness(): Promise<CatalogHarness> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const infra = await testInfra();
    cleanups.push(() => infra.stop());
    const prefix = `t${randomUUID().slice(0, 8)}_`;
    const nats: NatsConnection = await connect({ servers: infra.natsUrl });
    cleanups.push(() => nats.close());
    const events = await recordEvents(nats);
    const config = loadCatalogConfig({
      GRPC_LISTEN: '127.0.0.1:0',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: prefix,
      NATS_URL: infra.natsUrl,
      LOG_LEVEL: 'silent',
      OUTBOX_RETRY_MS: '200',
    });
    const service = await startCatalogService(config);
    cleanups.push(() => service.stop());
    const client = createServiceClient(CatalogServiceService, `127.0.0.1:${service.port}`, { defaultDeadlineMs: 5000 });
    cleanups.push(async () => client.close());
    const db = await mongoose.createConnection(infra.mongoUrl, { dbName: `${prefix}catalog` }).asPromise();
    cleanups.push(() => db.close());
    const settledEvents = async () => {
      await expect.poll(() => db.collection('outbox').countDocuments(), { timeout: 10_000 }).toBe(0);
      // The server fans a message out before it acknowledges the publish; one round trip after
      // the last acknowledgement, every message has reached this subscriber.
      await nats.flush();
      return events;
    };
    return { client, db, events, settledEvents, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
