import { randomUUID } from 'node:crypto';
import { checkHealth } from '@masthead/core/grpc';
import type { RunningService } from '@masthead/core/service';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIntegrationsConfig, startIntegrationsService } from '../src/app.js';
import { testInfra, type TestInfra } from './support/infra.js';

let infra: TestInfra;
beforeAll(async () => {
  infra = await testInfra();
}, 60_000);
afterAll(async () => {
  await infra?.stop();
}, 30_000);

describe('integrations service process', () => {
  it('serves health over its own database and event publisher, and stops cleanly', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}_`;
    const config = loadIntegrationsConfig({
      GRPC_LISTEN: '127.0.0.1:0',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: prefix,
      NATS_URL: infra.natsUrl,
      LOG_LEVEL: 'silent',
    });
    let service: RunningService | undefined = await startIntegrationsService(config);
    const db = await mongoose.createConnection(infra.mongoUrl, { dbName: `${prefix}integrations` }).asPromise();
    try {
      const address = `127.0.0.1:${service.port}`;
      expect(service.port).toBeGreaterThan(0);
      expect(await checkHealth(address)).toBe(true);
      // The event publisher's outbox lives in this service's own database.
      await expect
        .poll(async () => (await db.listCollections()).map((collection) => collection.name), { timeout: 10_000 })
        .toContain('outbox');

      await service.stop();
      service = undefined;
      expect(await checkHealth(address, 500)).toBe(false);
    } finally {
      await service?.stop();
      await db.close();
    }
  });
});
