import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { MongoClient } from 'mongodb';

import { INDEX_MIRROR_SQL } from './index-mirror.js';
import { freePort } from './ports.js';
import { startPostgres, runSql } from './postgres.js';
import { spawnManaged, stackedProcess } from './process.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';
import { resolveTools } from './tools.js';
import { canConnect, waitUntilReady } from './wait.js';

// FerretDB opens in well under a second here; 20 s covers a cold, loaded CI machine.
const READY_TIMEOUT_MS = 20_000;
// Another process can grab the chosen free port before FerretDB binds it.
const PORT_ATTEMPTS = 3;

/**
 * Starts FerretDB 1.x over its own PostgreSQL cluster (`<dataDir>/postgres`, with index
 * mirroring and custom plans: docs/adr/0090) on loopback ports and resolves once FerretDB
 * answers a MongoDB `ping`. The returned process stands for both: stopping it stops FerretDB,
 * then PostgreSQL. Throws when a binary is missing or a server does not become ready.
 */
export async function startFerretDb(options: StartServerOptions): Promise<StartedServer> {
  const dataDir = resolve(options.dataDir);
  const { binary, postgresBinDir } = await binaries(options);
  await mkdir(dataDir, { recursive: true });

  const postgres = await startPostgres({
    dataDir: join(dataDir, 'postgres'),
    binDir: postgresBinDir,
    logFile: options.logFile,
    echo: options.echo,
    ownProcessGroup: options.ownProcessGroup,
    ephemeral: options.ephemeral,
  });
  try {
    await runSql(postgresBinDir, postgres, INDEX_MIRROR_SQL);
    const ferretdb = await startFerretDbOver(postgres, dataDir, binary, options);
    return { ...ferretdb, process: stackedProcess(ferretdb.process, postgres.process) };
  } catch (error) {
    await postgres.process.stop(2000);
    throw error;
  }
}

async function binaries(options: StartServerOptions): Promise<{ binary: string; postgresBinDir: string }> {
  if (options.binary && options.postgresBinDir) return { binary: options.binary, postgresBinDir: options.postgresBinDir };
  const tools = await resolveTools();
  return { binary: options.binary ?? tools.ferretdb, postgresBinDir: options.postgresBinDir ?? tools.postgresBinDir };
}

async function startFerretDbOver(
  postgres: StartedServer,
  dataDir: string,
  binary: string,
  options: StartServerOptions,
): Promise<StartedServer> {
  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(LOOPBACK));
    const url = `mongodb://${LOOPBACK}:${port}/`;
    const child = await spawnManaged(binary, ferretDbArgs(postgres.url, dataDir, port), {
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

function ferretDbArgs(postgresUrl: string, dataDir: string, port: number): string[] {
  return [
    '--handler=postgresql',
    `--postgresql-url=${postgresUrl}`,
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
