import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

import { freePort } from './ports.js';
import { spawnManaged } from './process.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';
import { canConnect, waitUntilReady } from './wait.js';

// The CLI loads ~40 MB of JavaScript before it listens: ~5 s on a quiet machine, over 30 s on a
// loaded 2-core one (measured); 180 s covers a CI machine running other suites.
const READY_TIMEOUT_MS = 180_000;

/** The Firebase Auth emulator, with the project ID its tokens are issued for. */
export interface StartedFirebaseAuth extends StartedServer {
  /** host:port, the value of FIREBASE_AUTH_EMULATOR_HOST. */
  host: string;
  /** A `demo-` project (emulator only, never reaches Google), unique per start. */
  projectId: string;
}

/** Where `firebase-tools` (a dependency of this package) keeps its CLI entry point. */
function firebaseCli(): string {
  return createRequire(import.meta.url).resolve('firebase-tools/lib/bin/firebase.js');
}

/**
 * Starts the Firebase Auth emulator (no Java, no download: the Emulator UI is off, TOOLCHAIN.md)
 * on free loopback ports and resolves once its REST API answers. The hub and logging emulators
 * the CLI always starts get free ports too (their defaults, 4400/4500, collide between stacks),
 * and the CLI's temporary files (the hub locator) stay in `dataDir`.
 */
export async function startFirebaseAuth(options: StartServerOptions): Promise<StartedFirebaseAuth> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const [port, hubPort, loggingPort] = await Promise.all([options.port ?? freePort(LOOPBACK), freePort(LOOPBACK), freePort(LOOPBACK)]);
  const projectId = `demo-masthead-${randomBytes(4).toString('hex')}`;
  const configFile = join(dataDir, 'firebase.json');
  const emulators = {
    auth: { host: LOOPBACK, port },
    hub: { host: LOOPBACK, port: hubPort },
    logging: { host: LOOPBACK, port: loggingPort },
    ui: { enabled: false },
    singleProjectMode: true,
  };
  await writeFile(configFile, JSON.stringify({ emulators }));

  const args = [firebaseCli(), 'emulators:start', '--only', 'auth', '--project', projectId, '--config', configFile];
  const child = await spawnManaged(options.binary ?? process.execPath, args, {
    name: 'firebase-auth',
    cwd: dataDir,
    // CI=1 skips the CLI's message-of-the-day fetch, which hangs without internet access.
    env: { ...process.env, CI: '1', FIREBASE_CLI_DISABLE_UPDATE_CHECK: '1', TMPDIR: dataDir },
    logFile: options.logFile,
    echo: options.echo,
    ownProcessGroup: options.ownProcessGroup,
  });
  const outcome = await waitUntilReady(child, () => answersRest(port), READY_TIMEOUT_MS);
  if (outcome === 'ready') return { url: `http://${LOOPBACK}:${port}`, port, host: `${LOOPBACK}:${port}`, projectId, process: child };

  await child.stop(5000);
  const status = await child.exited;
  const why =
    outcome === 'timeout' ? `was not ready within ${READY_TIMEOUT_MS} ms` : `exited (code ${status.code}, signal ${status.signal})`;
  throw new Error(`firebase auth emulator ${why}${options.logFile ? `; see ${options.logFile}` : ''}`);
}

/** The emulator answers its root with a JSON banner once the REST API is up. */
async function answersRest(port: number): Promise<boolean> {
  if (!(await canConnect(LOOPBACK, port))) return false;
  try {
    const response = await fetch(`http://${LOOPBACK}:${port}/`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}
