import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  loadConfig,
  runAdmin,
  startStack,
  Supervisor,
  tailLogs,
  type DevstackConfig,
  type RestartPolicy,
  type RunningStack,
} from '@masthead/devstack';
import { freePort, type ManagedProcess } from '@masthead/local-infra';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A fault drill's own stack: temporary data, free ports, every process stopped by PID. */
export interface Drill {
  stack: RunningStack;
  supervisor: Supervisor;
  config: DevstackConfig;
  /** Unexpected exits the supervisor saw, by process name (the drill's own kills included). */
  exits: Map<string, number>;
  log(message: string): void;
  /** The running incarnation of a process of the stack (`identity`, `nats`, `gateway-2`…). */
  process(name: string): ManagedProcess;
  /** Stops everything; keeps the data folder (and says where) when `keep`. */
  stop(keep?: boolean): Promise<void>;
}

export interface DrillOptions {
  /** Settings for every process, on top of the drill defaults. */
  env?: Record<string, string>;
  replicas?: number;
  /** How the supervisor restarts what dies; a drill holds what it keeps down on purpose. */
  restart?: RestartPolicy;
}

// Settings that let a drill drive thousands of registrations from one address in minutes: the
// smallest argon2id cost identity accepts and limits beyond the drill's volume.
export const DRILL_ENV: Record<string, string> = {
  ARGON2_MEMORY_KIB: '8192',
  ARGON2_ITERATIONS: '1',
  HASH_QUEUE_LIMIT: '512',
  HASH_QUEUE_WAIT_MS: '4000',
  REGISTRATION_LIMIT_PER_HOUR: '1000000',
  CODE_REQUEST_LIMIT_PER_HOUR: '1000000',
  CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: '1000000',
  EMAIL_VALIDATION_LIMIT_PER_HOUR: '1000000',
  OUTBOX_RETRY_MS: '500',
};

const FAST_RESTART: RestartPolicy = { initialDelayMs: 200, maxDelayMs: 2_000, stableAfterMs: 5_000 };

/** Starts FerretDB (on PostgreSQL), NATS, the services and the gateway(s), and loads the demo fixture. */
export async function startDrill(name: string, options: DrillOptions = {}): Promise<Drill> {
  const dataDir = await mkdtemp(join(tmpdir(), `masthead-faults-${name}-`));
  const started = Date.now();
  const log = (message: string): void => console.log(`[faults:${name}] +${((Date.now() - started) / 1000).toFixed(1)}s ${message}`);
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', MASTHEAD_DATA_DIR: dataDir }, repoRoot);
  const exits = new Map<string, number>();
  const supervisor = new Supervisor(
    {
      onUnexpectedExit(child, status) {
        exits.set(child.name, (exits.get(child.name) ?? 0) + 1);
        log(`${child.name} (pid ${child.pid}) exited (code ${status.code}, signal ${status.signal})`);
      },
      onRestarted: (child, attempt) => log(`${child.name} runs again (pid ${child.pid}, restart ${attempt})`),
      onRestartFailed: (child, error) => log(`${child} did not start: ${error instanceof Error ? error.message : String(error)}`),
    },
    { restart: options.restart ?? FAST_RESTART },
  );
  const stop = async (keep = false): Promise<void> => {
    await supervisor.stop();
    if (keep) log(`data and logs kept in ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const stack = await startStack(supervisor, config, {
      env: { ...process.env, ...DRILL_ENV, ...options.env },
      replicas: options.replicas,
    });
    if (!stack) throw new Error('the stack stopped while starting');
    const fixture = await runAdmin(supervisor, config, stack.topology.sharedEnv, ['load-fixture', join('fixtures', 'demo.json')]);
    if (fixture !== 0) throw new Error(`loading the demo fixture failed (exit ${fixture})`);
    log(`stack ready: ${stack.origins.join(', ')} (data ${dataDir})`);
    return {
      stack,
      supervisor,
      config,
      exits,
      log,
      process(processName) {
        const running = supervisor.processOf(processName);
        if (!running) throw new Error(`${processName} is not running`);
        return running;
      },
      stop,
    };
  } catch (error) {
    console.error(await tailLogs(config.logDir, 20).catch(() => ''));
    await stop(true);
    throw error;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolvePromise) => setTimeout(resolvePromise, ms));

/** Polls until `probe` returns a value or `timeoutMs` passes (then undefined). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(intervalMs);
  }
}

/** The p-th percentile (0-100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
