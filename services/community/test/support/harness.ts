import { randomUUID } from 'node:crypto';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { CommunityServiceService } from '@masthead/proto/community';
import mongoose, { type Connection } from 'mongoose';
import { loadCommunityConfig, startCommunityService } from '../../src/app.js';
import { testInfra } from './infra.js';

export interface CommunityHarness {
  client: ServiceClient<typeof CommunityServiceService>;
  /** The service's own database: nothing writes teams or passes through the API yet. */
  db: Connection;
  stop(): Promise<void>;
}

/** The community service in-process on 127.0.0.1:0 over real FerretDB and NATS, fresh prefix. */
export async function startCommunityHarness(): Promise<CommunityHarness> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const infra = await testInfra();
    cleanups.push(() => infra.stop());
    const prefix = `t${randomUUID().slice(0, 8)}_`;
    const config = loadCommunityConfig({
      GRPC_LISTEN: '127.0.0.1:0',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: prefix,
      NATS_URL: infra.natsUrl,
      LOG_LEVEL: 'silent',
    });
    const service = await startCommunityService(config);
    cleanups.push(() => service.stop());
    const client = createServiceClient(CommunityServiceService, `127.0.0.1:${service.port}`, { defaultDeadlineMs: 5000 });
    cleanups.push(async () => client.close());
    const db = await mongoose.createConnection(infra.mongoUrl, { dbName: `${prefix}community` }).asPromise();
    cleanups.push(() => db.close());
    return { client, db, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
