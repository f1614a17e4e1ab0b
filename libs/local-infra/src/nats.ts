import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { spawnManaged } from './process.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';
import { resolveTools } from './tools.js';
import { canConnect, waitUntilReady } from './wait.js';

// nats-server is ready in < 1.5 s here (TOOLCHAIN.md); 10 s covers a loaded CI machine.
const READY_TIMEOUT_MS = 10_000;

/**
 * Starts nats-server with JetStream (store under dataDir) on a loopback port and resolves once
 * it accepts connections. Without `port` the server picks one itself (-p -1), which cannot race,
 * and reports it in its ports file. Throws when it does not become ready.
 */
export async function startNats(options: StartServerOptions): Promise<StartedServer> {
  const dataDir = resolve(options.dataDir);
  const binary = options.binary ?? (await resolveTools()).natsServer;
  await mkdir(dataDir, { recursive: true });

  const args = ['-js', '-a', LOOPBACK, '-p', String(options.port ?? -1), '-sd', dataDir, '--ports_file_dir', dataDir];
  const child = await spawnManaged(binary, args, {
    name: 'nats',
    cwd: dataDir,
    logFile: options.logFile,
    echo: options.echo,
    ownProcessGroup: options.ownProcessGroup,
  });

  let port: number | undefined;
  const outcome = await waitUntilReady(
    child,
    async () => {
      port ??= await readClientPort(dataDir, child.pid);
      return port !== undefined && (await canConnect(LOOPBACK, port));
    },
    READY_TIMEOUT_MS,
  );
  if (outcome === 'ready' && port !== undefined) return { url: `nats://${LOOPBACK}:${port}`, port, process: child };

  await child.stop(2000);
  const status = await child.exited;
  const why =
    outcome === 'timeout' ? `was not ready within ${READY_TIMEOUT_MS} ms` : `exited (code ${status.code}, signal ${status.signal})`;
  throw new Error(`nats-server ${why}${options.logFile ? `; see ${options.logFile}` : ''}`);
}

/** Reads `<executable>_<pid>.ports`, which nats-server writes once it listens. */
async function readClientPort(dir: string, pid: number): Promise<number | undefined> {
  const file = (await readdir(dir)).find((entry) => entry.endsWith(`_${pid}.ports`));
  if (!file) return undefined;
  try {
    // {"nats": ["nats://127.0.0.1:PORT"], ...}: client URLs are under "nats".
    const parsed = JSON.parse(await readFile(join(dir, file), 'utf8')) as { nats?: unknown };
    const first: unknown = Array.isArray(parsed.nats) ? parsed.nats[0] : undefined;
    return typeof first === 'string' ? Number(new URL(first).port) || undefined : undefined;
  } catch {
    return undefined; // read while being written: try again on the next poll
  }
}
