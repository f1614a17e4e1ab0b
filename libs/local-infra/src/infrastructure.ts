import { join, resolve } from 'node:path';

import { loadContainerRuntime, startContainers } from './containers.js';
import { startFerretDb } from './ferretdb.js';
import { startNats } from './nats.js';

/** A database and an event bus for one test run or one local stack. */
export interface Infrastructure {
  mongoUrl: string;
  natsUrl: string;
  kind: 'local' | 'containers';
  /** Stops everything started; never throws. */
  stop(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Local servers keep their data and logs here (ferretdb/, nats/, *.log). */
  dataDir: string;
  /** MASTHEAD_INFRA=local forces local binaries; =containers requires a container runtime. */
  env?: NodeJS.ProcessEnv;
  /** The data is thrown away after the run (tests): the local database skips fsync. */
  ephemeral?: boolean;
}

/**
 * MongoDB 7 and NATS containers where a container runtime works, otherwise FerretDB (over
 * PostgreSQL) and nats-server from local binaries. Throws only when the chosen kind cannot start.
 */
export async function startInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  const env = options.env ?? process.env;
  const mode = env.MASTHEAD_INFRA;
  if (mode !== 'local') {
    const runtime = await loadContainerRuntime(env);
    if (runtime) return startContainers(runtime);
    if (mode === 'containers') throw new Error('MASTHEAD_INFRA=containers but no working container runtime was found');
  }
  return startLocal(resolve(options.dataDir), options.ephemeral);
}

async function startLocal(dataDir: string, ephemeral = false): Promise<Infrastructure> {
  const [ferretdb, nats] = await Promise.allSettled([
    startFerretDb({ dataDir: join(dataDir, 'ferretdb'), logFile: join(dataDir, 'ferretdb.log'), ephemeral }),
    startNats({ dataDir: join(dataDir, 'nats'), logFile: join(dataDir, 'nats.log') }),
  ]);
  if (ferretdb.status === 'rejected' || nats.status === 'rejected') {
    // Do not leave the one that started running.
    await Promise.all([ferretdb, nats].map((result) => (result.status === 'fulfilled' ? result.value.process.stop() : undefined)));
    const reason: unknown = ferretdb.status === 'rejected' ? ferretdb.reason : nats.status === 'rejected' ? nats.reason : undefined;
    throw reason instanceof Error ? reason : new Error(String(reason));
  }
  const db = ferretdb.value;
  const bus = nats.value;
  return {
    kind: 'local',
    mongoUrl: db.url,
    natsUrl: bus.url,
    async stop() {
      await Promise.all([db.process.stop(), bus.process.stop()]);
    },
  };
}
