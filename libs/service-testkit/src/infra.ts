import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure } from '@masthead/local-infra';
import { inject } from 'vitest';
import './provided.js';

export interface TestInfra {
  mongoUrl: string;
  natsUrl: string;
  /** Stops what this file started; a no-op for the run's shared servers. */
  stop(): Promise<void>;
}

/**
 * The run's shared FerretDB and NATS when the root config provides them; otherwise (a config
 * without that globalSetup) this file starts its own on free ports in a temporary folder.
 */
export async function testInfra(): Promise<TestInfra> {
  const [mongoUrl, natsUrl] = [inject('mongoUrl'), inject('natsUrl')];
  if (mongoUrl && natsUrl) return { mongoUrl, natsUrl, stop: async () => undefined };
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-test-'));
  const infra = await startInfrastructure({ dataDir, ephemeral: true });
  return {
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    async stop() {
      await infra.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
