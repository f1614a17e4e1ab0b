import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure } from '@masthead/local-infra';
import type { TestProject } from 'vitest/node';
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
  }
}

/**
 * One FerretDB and one NATS for the whole run, on free loopback ports with data in a temporary
 * folder, stopped by PID at the end. Each test file then starts its own stack over them with its
 * own database prefix, and each test its own resource.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-test-'));
  const infrastructure = await startInfrastructure({ dataDir });
  project.provide('mongoUrl', infrastructure.mongoUrl);
  project.provide('natsUrl', infrastructure.natsUrl);
  return async () => {
    await infrastructure.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
