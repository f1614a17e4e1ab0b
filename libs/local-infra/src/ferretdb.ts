import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';

import { MongoClient } from 'mongodb';

import { freePort } from './ports.js';
import { spawnManaged } from './process.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';
import { resolveTools } from './tools.js';
import { canConnect, waitUntilReady } from './wait.js';

// FerretDB with SQLite opens in well under a second here; 20 s covers a cold, loaded CI machine.
const READY_TIMEOUT_MS = 20_000;
// Another process can grab the chosen free port before FerretDB binds it.
const PORT_ATTEMPTS = 3;

/**
 * Starts FerretDB 1.x with its SQLite backend on a loopback port and resolves once it answers
 * a MongoDB `ping`. Throws when the binary is missing or the server does not become ready.
 */
export async function startFerretDb(options: StartServerOptions): Promise<StartedServer> {
  const dataDir = resolve(options.dataDir);
  const binary = options.binary ?? (await resolveTools()).ferretdb;
  await mkdir(dataDir, { recursive: true });

  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(LOOPBACK));
    const url = `mongodb://${LOOPBACK}:${port}/`;
    const child = await spawnManaged(binary, ferretDbArgs(dataDir, port), {
      name: 'ferretdb',
      cwd: dataDir,
      logFile: options.logFile,
      echo: options.echo,
      ownProcessGroup: options.ownProcessGroup,
    });
    const outcome = await waitUntilReady(child, () => answersPing(port, url), READY_TIMEOUT_MS);
    if (outcome === 'ready') return { url, port, process: child };

    await child.stop(2000);
    if (outcome === 'exited' && attempt < attempts) continue;
    const status = await child.exited;
    const why =
      outcome === 'timeout' ? `did not answer ping within ${READY_TIMEOUT_MS} ms` : `exited (code ${status.code}, signal ${status.signal})`;
    throw new Error(`ferretdb on port ${port} ${why}${options.logFile ? `; see ${options.logFile}` : ''}`);
  }
}

function ferretDbArgs(dataDir: string, port: number): string[] {
  return [
    '--handler=sqlite',
    // WAL (FerretDB's default) with synchronous=NORMAL: no fsync per commit, so a power loss may
    // drop the last commits but never corrupts the database; about a fifth more writes per
    // second. Production runs on MongoDB (docs/adr/0005).
    `--sqlite-url=file:${dataDir}/?_pragma=synchronous(normal)`,
    `--listen-addr=${LOOPBACK}:${port}`,
    // Its state.json (instance UUID) goes with the data, not into the current directory.
    `--state-dir=${dataDir}`,
    '--telemetry=disable',
    // The debug HTTP listener defaults to the fixed port 8088, which collides between stacks; `-` disables it.
    '--debug-addr=-',
    // At warn it dumps every error reply in ~20 lines (e.g. the driver's unsupported
    // endSessions on each disconnect), which buries real failures; clients get those errors anyway.
    '--log-level=error',
  ];
}

async function answersPing(port: number, url: string): Promise<boolean> {
  // A TCP probe first: cheap while the port is still closed, which is most polls.
  if (!(await canConnect(LOOPBACK, port))) return false;
  const client = new MongoClient(url, { directConnection: true, serverSelectionTimeoutMS: 1000, connectTimeoutMS: 1000 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}
