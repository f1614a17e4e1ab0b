import { mkdir } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';

import { freePort } from './ports.js';
import { spawnManaged } from './process.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';
import { cacheDir, isExecutable } from './tools.js';
import { canConnect, waitUntilReady } from './wait.js';

// Another process can grab the chosen free port before the server binds it.
const PORT_ATTEMPTS = 3;

/**
 * A secret key both fakes accept: localstripe takes any `sk_…`, stripe-mock only `sk_test_X` or
 * `rk_test_X` with no further underscore. Neither keeps state per key (docs/adr/0110).
 */
export const FAKE_PROVIDER_KEY = 'sk_test_masthead';

/**
 * Where scripts/bootstrap.mjs puts the card-provider fakes; fixed paths under the cache folder
 * (not tools.json), so that a checkout whose bootstrap predates them still finds them.
 */
export const cardProviderToolPaths = (env: NodeJS.ProcessEnv = process.env) => ({
  /** Virtualenv holding the pinned `localstripe` (PyPI). */
  localStripeVenv: join(cacheDir(env), 'localstripe'),
  /** `stripe-mock`, built from its pinned Go module. */
  stripeMock: join(cacheDir(env), 'bin', 'stripe-mock'),
});

/**
 * The Python interpreter of the localstripe virtualenv: MASTHEAD_LOCALSTRIPE_VENV, else
 * <cache>/localstripe. Throws an Error naming the bootstrap command when it is missing.
 */
export async function resolveLocalStripePython(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const venv = resolve(env.MASTHEAD_LOCALSTRIPE_VENV || cardProviderToolPaths(env).localStripeVenv);
  const python = join(venv, 'bin', 'python');
  if (await isExecutable(python)) return python;
  throw new Error(`localstripe not found (no ${python}): run \`node scripts/bootstrap.mjs --tools\` from the repository root`);
}

/**
 * stripe-mock: MASTHEAD_STRIPE_MOCK_BIN, else <cache>/bin/stripe-mock, else PATH. Throws an
 * Error naming the bootstrap command when none is found.
 */
export async function resolveStripeMock(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.MASTHEAD_STRIPE_MOCK_BIN) {
    if (await isExecutable(env.MASTHEAD_STRIPE_MOCK_BIN)) return resolve(env.MASTHEAD_STRIPE_MOCK_BIN);
    throw new Error(`stripe-mock: ${env.MASTHEAD_STRIPE_MOCK_BIN} (from the environment) is not an executable file`);
  }
  const candidates = [
    cardProviderToolPaths(env).stripeMock,
    ...(env.PATH ?? '').split(delimiter).map((dir) => dir && join(dir, 'stripe-mock')),
  ];
  for (const candidate of candidates) if (candidate && (await isExecutable(candidate))) return candidate;
  throw new Error('stripe-mock not found: run `node scripts/bootstrap.mjs --tools` from the repository root');
}

/** How to run one fake card-provider server on a given loopback port. */
export interface FakeProviderLaunch {
  name: string;
  binary: string;
  args(port: number): string[];
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
}

/**
 * Starts a fake of the card provider's HTTP API on a free loopback port (retrying a port taken
 * meanwhile) and resolves once an authenticated `GET /v1/customers` answers 200. `url` is the API
 * base (`http://127.0.0.1:PORT`). Throws when the server exits or does not become ready.
 */
export async function startFakeProvider(launch: FakeProviderLaunch, options: StartServerOptions): Promise<StartedServer> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(LOOPBACK));
    const child = await spawnManaged(launch.binary, launch.args(port), {
      name: launch.name,
      cwd: dataDir,
      env: launch.env,
      logFile: options.logFile,
      echo: options.echo,
      ownProcessGroup: options.ownProcessGroup,
    });
    const outcome = await waitUntilReady(child, () => answersApi(port), launch.readyTimeoutMs);
    if (outcome === 'ready') return { url: `http://${LOOPBACK}:${port}`, port, process: child };

    await child.stop(2000);
    if (outcome === 'exited' && attempt < attempts) continue;
    const status = await child.exited;
    const why =
      outcome === 'timeout' ? `was not ready within ${launch.readyTimeoutMs} ms` : `exited (code ${status.code}, signal ${status.signal})`;
    throw new Error(`${launch.name} on port ${port} ${why}${options.logFile ? `; see ${options.logFile}` : ''}`);
  }
}

async function answersApi(port: number): Promise<boolean> {
  // A TCP probe first: cheap while the port is still closed, which is most polls.
  if (!(await canConnect(LOOPBACK, port))) return false;
  try {
    const response = await fetch(`http://${LOOPBACK}:${port}/v1/customers?limit=1`, {
      headers: { authorization: `Bearer ${FAKE_PROVIDER_KEY}` },
      signal: AbortSignal.timeout(2000),
    });
    return response.ok;
  } catch {
    return false;
  }
}
