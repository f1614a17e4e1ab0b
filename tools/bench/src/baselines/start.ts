import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { waitForHttpOk, type DevstackConfig, type Supervisor, type Tier } from '@masthead/devstack';
import { freePort, spawnManaged, type ManagedProcess } from '@masthead/local-infra';

import { withDefaultHashing } from './hash-parameters.js';

const READY_TIMEOUT_MS = 30_000;
const here = dirname(fileURLToPath(import.meta.url));

export interface RunningBaselines {
  /** Baseline (a): bare express, same JSON as GET /plans. */
  bareJsonUrl: string;
  /** Baseline (b): bare express + one raw grpc-js call to the echo server. */
  oneHopUrl: string;
  /** Baseline (c): GET <hashUrl>/run?ms=N. */
  hashUrl: string;
  /** Issue 30's verification in one process: GET <verifyUrl>/run?ms=N. */
  verifyUrl: string;
  processes: ManagedProcess[];
}

/** What the baselines serve and verify, from the scenario arranged on the stack. */
export interface BaselineInputs {
  plansJson: string;
  verification: { apiBase: string; resource: string; sessionToken: string };
}

/**
 * Starts the baseline processes (echo gRPC server, bare express app, hash server) and the
 * verification process, each in its own process like the stack's, adopted by `supervisor`.
 * `plansJson` is the body of the stack's GET /plans; the echo server answers with a payload of its
 * size. The verification process asks the stack for the tokens it verifies.
 */
export async function startBaselines(supervisor: Supervisor, config: DevstackConfig, inputs: BaselineInputs): Promise<RunningBaselines> {
  const { plansJson, verification } = inputs;
  const jsonFile = join(config.dataDir, 'plans.json');
  await writeFile(jsonFile, plansJson);
  const [echoPort, expressPort, hashPort, verifyPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const start = (name: string, tier: Tier, args: string[]): Promise<ManagedProcess> =>
    supervisor.track(
      tier,
      spawnManaged(process.execPath, [join(here, `${name}.js`), ...args], {
        name: `bench-${name}`,
        cwd: config.repoRoot,
        env: withDefaultHashing(process.env),
        logFile: join(config.logDir, `bench-${name}.log`),
        ownProcessGroup: true,
      }),
      (child) => child,
    );
  const processes = await Promise.all([
    start('echo-server', 'service', [String(echoPort), String(Buffer.byteLength(plansJson))]),
    start('express-server', 'gateway', [String(expressPort), jsonFile, `127.0.0.1:${echoPort}`]),
    start('hash-server', 'service', [String(hashPort)]),
    start('verify-server', 'service', [String(verifyPort), verification.apiBase, verification.resource, verification.sessionToken]),
  ]);
  const expressOrigin = `http://127.0.0.1:${expressPort}`;
  const hashUrl = `http://127.0.0.1:${hashPort}`;
  const verifyUrl = `http://127.0.0.1:${verifyPort}`;
  const ready = await Promise.all(
    [`${expressOrigin}/ready`, `${hashUrl}/ready`, `${verifyUrl}/ready`].map((url) =>
      waitForHttpOk(url, READY_TIMEOUT_MS, () => supervisor.isStopping),
    ),
  );
  if (!ready.every(Boolean))
    throw new Error(`the baseline servers were not ready within ${READY_TIMEOUT_MS / 1000} s; see ${config.logDir}`);
  return { bareJsonUrl: `${expressOrigin}/plans`, oneHopUrl: `${expressOrigin}/one-hop`, hashUrl, verifyUrl, processes };
}
