import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFirebaseAuth, startInfrastructure, type StartedFirebaseAuth } from '@masthead/local-infra';
import type { TestProject } from 'vitest/node';
import type { RunProvided } from '@masthead/service-testkit';
import type {} from 'vitest';
import { startCardProviders } from './card-providers.js';

// The provided values are declared once, in the service test kit; TypeScript does not carry an
// augmentation across pnpm's linked copies of vitest, so this package repeats only its name.
declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an augmentation names its source
  export interface ProvidedContext extends RunProvided {}
}

/**
 * One FerretDB, one NATS and one Firebase Auth emulator for the whole run, on free loopback ports with data in a temporary
 * folder, stopped by PID at the end. Each test file then starts its own stack over them with its
 * own database prefix, and each test its own resource.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-test-'));
  // The emulator starts alongside; a failure only fails the tests that use it (they say why).
  const idpStarting = startIdpEmulator(dataDir);
  const cardProvidersStarting = startCardProviders(dataDir);
  const infrastructure = await startInfrastructure({ dataDir, ephemeral: true }).catch(async (error: unknown) => {
    await (await idpStarting)?.process.stop();
    await (await cardProvidersStarting).stop();
    throw error;
  });
  const idp = await idpStarting;
  project.provide('mongoUrl', infrastructure.mongoUrl);
  project.provide('natsUrl', infrastructure.natsUrl);
  project.provide('idpEmulatorHost', idp?.host ?? '');
  project.provide('idpProjectId', idp?.projectId ?? '');
  const cardProviders = await cardProvidersStarting;
  project.provide('localStripeUrl', cardProviders.localStripeUrl);
  project.provide('stripeMockUrl', cardProviders.stripeMockUrl);
  return async () => {
    await Promise.all([infrastructure.stop(), idp?.process.stop(), cardProviders.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  };
}

async function startIdpEmulator(dataDir: string): Promise<StartedFirebaseAuth | undefined> {
  try {
    return await startFirebaseAuth({ dataDir: join(dataDir, 'firebase-auth'), logFile: join(dataDir, 'firebase-auth.log') });
  } catch (error) {
    console.warn(`Firebase Auth emulator not started: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
