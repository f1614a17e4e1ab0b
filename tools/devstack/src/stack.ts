import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import {
  resolveTools,
  spawnManaged,
  startFerretDb,
  startLocalStripe,
  startNats,
  type ManagedProcess,
  type StartedServer,
  type Tools,
} from '@masthead/local-infra';

import type { DevstackConfig } from './config.js';
import { waitForHttpOk } from './readiness.js';
import type { Supervisor } from './supervisor.js';
import { entryPoints, planTopology, urlHost, type ProcessSpec, type Topology } from './topology.js';

// The gateway answers /readyz once it reaches every service; a cold start takes a few seconds.
const READY_TIMEOUT_MS = 60_000;

/** Why the stack could not start, and whose logs explain it ('all' or some process names). */
export class StackStartError extends Error {
  constructor(
    message: string,
    readonly logs: readonly string[] | 'all' | 'none' = 'none',
  ) {
    super(message);
  }
}

export interface StackOptions {
  /** The environment the processes inherit (before the stack's own variables); process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Extra node flags for a service or the gateway by process name (e.g. --cpu-prof). */
  nodeArgs?: (name: string) => readonly string[];
  /** Processes per service and gateways (fault drills); 1 by default. */
  replicas?: number;
}

/** A started stack: where to reach it and which processes it runs. */
export interface RunningStack {
  /** e.g. http://127.0.0.1:8080 (no /api/v1). */
  origin: string;
  /** Every gateway's origin, the first being `origin`. */
  origins: string[];
  infra: { ferretdb: StartedServer; nats: StartedServer };
  /** localstripe, billing's card provider (docs/adr/0110); absent when it could not start. */
  cardProvider: StartedServer | undefined;
  topology: Topology;
  /** Every process of the stack, FerretDB and NATS included. */
  processes: ManagedProcess[];
}

/**
 * FerretDB and NATS, then the six services and the gateway as separate processes, adopted by
 * `supervisor` (which stops them). Resolves once the gateway answers /readyz; throws a
 * StackStartError otherwise. Returns undefined when the supervisor began stopping meanwhile.
 */
export async function startStack(
  supervisor: Supervisor,
  config: DevstackConfig,
  options: StackOptions = {},
  onProgress: (message: string) => void = () => undefined,
): Promise<RunningStack | undefined> {
  await assertBuilt(config.repoRoot);
  const tools = await resolveTools();
  let started = performance.now();
  const cardProviderStarting = startCardProvider(supervisor, config, onProgress);
  const infra = await startInfra(supervisor, config, tools);
  if (supervisor.isStopping) return undefined;
  onProgress(`FerretDB ${infra.ferretdb.url} and NATS ${infra.nats.url} ready in ${since(started)}`);
  const cardProvider = await cardProviderStarting;
  if (supervisor.isStopping) return undefined;

  const topology = await planTopology(
    config,
    { mongoUrl: infra.ferretdb.url, natsUrl: infra.nats.url, cardProviderUrl: cardProvider?.url },
    options.env ?? process.env,
    { replicas: options.replicas },
  );
  if (supervisor.isStopping) return undefined;
  started = performance.now();
  const children = await Promise.all([
    ...topology.services.map((spec) => startProcess(supervisor, config, spec, 'service', options.nodeArgs)),
    ...topology.gateways.map((spec) => startProcess(supervisor, config, spec, 'gateway', options.nodeArgs)),
  ]);

  const origins = topology.gateways.map((spec) => `http://${urlHost(config.host)}:${spec.env.PORT}`);
  const origin = origins[0]!;
  const ready = await Promise.all(origins.map((each) => waitForHttpOk(`${each}/readyz`, READY_TIMEOUT_MS, () => supervisor.isStopping)));
  if (supervisor.isStopping) return undefined;
  if (!ready.every(Boolean))
    throw new StackStartError(`a gateway did not answer GET /readyz with 200 within ${READY_TIMEOUT_MS / 1000} s`, 'all');
  onProgress(`services and gateway ready in ${since(started)}`);
  const infraProcesses = [infra.ferretdb.process, infra.nats.process, ...(cardProvider ? [cardProvider.process] : [])];
  return { origin, origins, infra, cardProvider, topology, processes: [...infraProcesses, ...children] };
}

/**
 * Runs the admin CLI (tools/admin) with `args` against the stack, as an operator would; resolves
 * with its exit code, or undefined when the CLI is not built.
 */
export async function runAdmin(
  supervisor: Supervisor,
  config: DevstackConfig,
  sharedEnv: NodeJS.ProcessEnv,
  args: readonly string[],
): Promise<number | null | undefined> {
  const cli = join(config.repoRoot, 'tools', 'admin', 'dist', 'cli.js');
  try {
    await access(cli);
  } catch {
    return undefined;
  }
  const starting = spawnManaged(process.execPath, [cli, ...args], {
    name: 'admin',
    cwd: config.repoRoot,
    env: sharedEnv,
    logFile: join(config.logDir, 'admin.log'),
    echo: config.logToConsole,
    ownProcessGroup: true,
  });
  const child = await supervisor.track('task', starting, (started) => started);
  return (await child.exited).code;
}

/**
 * FerretDB and NATS in parallel, kept running: a restart reuses the port the first start got, so
 * that every client reconnects to the same address (NATS clients and the MongoDB driver retry it).
 * Throws a StackStartError naming their logs when either fails to start the first time.
 */
async function startInfra(
  supervisor: Supervisor,
  config: DevstackConfig,
  tools: Tools,
): Promise<{ ferretdb: StartedServer; nats: StartedServer }> {
  const echo = config.logToConsole;
  const [ferretdb, nats] = await Promise.allSettled([
    keepServer(supervisor, 'ferretdb', (port) =>
      startFerretDb({
        dataDir: join(config.dataDir, 'ferretdb'),
        logFile: join(config.logDir, 'ferretdb.log'),
        echo,
        ownProcessGroup: true,
        binary: tools.ferretdb,
        postgresBinDir: tools.postgresBinDir,
        port,
      }),
    ),
    keepServer(supervisor, 'nats', (port) =>
      startNats({
        dataDir: join(config.dataDir, 'nats'),
        logFile: join(config.logDir, 'nats.log'),
        echo,
        ownProcessGroup: true,
        binary: tools.natsServer,
        port,
      }),
    ),
  ]);
  if (ferretdb.status === 'fulfilled' && nats.status === 'fulfilled') return { ferretdb: ferretdb.value, nats: nats.value };
  const reason: unknown = ferretdb.status === 'rejected' ? ferretdb.reason : nats.status === 'rejected' ? nats.reason : undefined;
  throw new StackStartError(reason instanceof Error ? reason.message : String(reason), ['ferretdb', 'nats']);
}

/** Keeps a server running; its first start picks the port, every restart reuses it. */
async function keepServer(
  supervisor: Supervisor,
  name: string,
  start: (port: number | undefined) => Promise<StartedServer>,
): Promise<StartedServer> {
  let first: StartedServer | undefined;
  await supervisor.keep('infra', name, async () => {
    const server = await start(first?.port);
    first ??= server;
    return server.process;
  });
  return first!;
}

/**
 * localstripe, so the demo member can save a test card (README). Optional: when bootstrap could
 * not install it, or it does not start, the stack runs without it and says so. Its objects persist
 * in .data/localstripe like the database that refers to them.
 */
async function startCardProvider(
  supervisor: Supervisor,
  config: DevstackConfig,
  onProgress: (message: string) => void,
): Promise<StartedServer | undefined> {
  const started = performance.now();
  try {
    const server = await keepServer(supervisor, 'localstripe', (port) =>
      startLocalStripe({
        dataDir: join(config.dataDir, 'localstripe'),
        persist: true,
        logFile: join(config.logDir, 'localstripe.log'),
        echo: config.logToConsole,
        ownProcessGroup: true,
        port,
      }),
    );
    onProgress(`card provider (localstripe) ${server.url} ready in ${since(started)}`);
    return server;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    onProgress(`warning: card provider (localstripe) not started, saving a card will fail: ${reason}`);
    return undefined;
  }
}

/** A service or the gateway, kept running: its environment (and so its port) is the same every start. */
function startProcess(
  supervisor: Supervisor,
  config: DevstackConfig,
  spec: ProcessSpec,
  tier: 'service' | 'gateway',
  nodeArgs: StackOptions['nodeArgs'],
): Promise<ManagedProcess> {
  return supervisor.keep(tier, spec.name, () =>
    spawnManaged(process.execPath, [...(nodeArgs?.(spec.name) ?? []), spec.entry], {
      name: spec.name,
      cwd: config.repoRoot,
      env: spec.env,
      logFile: join(config.logDir, `${spec.name}.log`),
      echo: config.logToConsole,
      ownProcessGroup: true,
    }),
  );
}

/** A missing dist/main.js means the build did not run; say so instead of a crash report. */
async function assertBuilt(repoRoot: string): Promise<void> {
  const entries = entryPoints(repoRoot);
  const missing: string[] = [];
  for (const entry of [...Object.values(entries.services), entries.gateway]) {
    await access(entry).catch(() => missing.push(entry));
  }
  if (missing.length > 0) throw new StackStartError(`not built: ${missing.join(', ')}; run \`npm run build\``);
}

const since = (start: number): string => `${Math.round(performance.now() - start)} ms`;
