#!/usr/bin/env node
// `npm start` runs this after bootstrap and build: FerretDB and NATS from local binaries, the
// six gRPC services, the gateway, then the demo fixture. Data stays in <repo>/.data.
import { access, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { resolveTools, spawnManaged, startFerretDb, startNats, type ManagedProcess, type StartedServer } from '@masthead/local-infra';

import { banner } from './banner.js';
import { loadConfig } from './config.js';
import { startDemoFixtureLoad } from './fixture.js';
import { clearLogs, tailLogs } from './logs.js';
import { waitForHttpOk } from './readiness.js';
import { Supervisor } from './supervisor.js';
import { entryPoints, planTopology, type ProcessSpec } from './topology.js';

// The gateway answers /readyz once it reaches every service; a cold start takes a few seconds.
const READY_TIMEOUT_MS = 60_000;
const TAIL_LINES = 30;

const log = (message: string): void => console.log(`[devstack] ${message}`);
const since = (start: number): string => `${Math.round(performance.now() - start)} ms`;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const config = loadConfig(process.env, repoRoot);

const supervisor = new Supervisor({
  onUnexpectedExit(child, status) {
    void fail(`${child.name} (pid ${child.pid}) exited unexpectedly (code ${status.code}, signal ${status.signal})`, [child.name]);
  },
});

/** Stops everything (by PID, in tier order) and exits; only the first call counts. */
function shutdown(code: number): void {
  if (supervisor.isStopping) return;
  const started = performance.now();
  log('stopping');
  void supervisor.stop().then(() => {
    log(`stopped in ${since(started)}`);
    process.exit(code);
  });
}

/** Reports a failure with the tail of the named logs (or all), then shuts down with exit code 1. */
async function fail(reason: string, logs: readonly string[] | 'all' | 'none' = 'none'): Promise<void> {
  if (supervisor.isStopping) return;
  console.error(`[devstack] ${reason}`);
  if (logs !== 'none') console.error(await tailLogs(config.logDir, TAIL_LINES, logs === 'all' ? undefined : logs).catch(() => ''));
  shutdown(1);
}

// Children run in process groups of their own, so Ctrl-C reaches only this process and the
// stop order holds. SIGHUP (terminal closed) must stop them too, or they would outlive us.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(0));

async function main(): Promise<void> {
  await assertBuilt();
  await mkdir(config.logDir, { recursive: true });
  await clearLogs(config.logDir);
  const tools = await resolveTools();

  let started = performance.now();
  const infra = await startInfra(tools);
  if (!infra || supervisor.isStopping) return;
  log(`FerretDB ${infra.ferretdb.url} and NATS ${infra.nats.url} ready in ${since(started)}`);

  const topology = await planTopology(config, { mongoUrl: infra.ferretdb.url, natsUrl: infra.nats.url }, process.env);
  if (supervisor.isStopping) return;
  const processes = [...topology.services, topology.gateway];
  started = performance.now();
  await Promise.all(processes.map((spec) => startProcess(spec, spec === topology.gateway ? 'gateway' : 'service')));

  const host = urlHost(config.host);
  const ready = await waitForHttpOk(`http://${host}:${config.port}/readyz`, READY_TIMEOUT_MS, () => supervisor.isStopping);
  if (supervisor.isStopping) return;
  if (!ready) return fail(`the gateway did not answer GET /readyz with 200 within ${READY_TIMEOUT_MS / 1000} s`, 'all');
  log(`services and gateway ready in ${since(started)}`);

  const fixture = await supervisor.track(
    'task',
    startDemoFixtureLoad(config.repoRoot, topology.sharedEnv, join(config.logDir, 'admin.log'), config.logToConsole),
    (child) => child,
  );
  if (fixture) {
    const status = await fixture.exited;
    if (supervisor.isStopping) return;
    if (status.code !== 0) return fail(`loading fixtures/demo.json failed (exit code ${status.code})`, ['admin']);
  } else {
    log('warning: tools/admin/dist/cli.js is missing; the demo fixture was not loaded');
  }
  console.log(banner(`http://${host}:${config.port}/api/v1`, performance.now(), fixture !== undefined));
}

/** FerretDB and NATS in parallel; undefined (and shutting down) when either fails. */
async function startInfra(tools: {
  ferretdb: string;
  natsServer: string;
}): Promise<{ ferretdb: StartedServer; nats: StartedServer } | undefined> {
  const echo = config.logToConsole;
  const ofServer = (server: StartedServer): ManagedProcess => server.process;
  const [ferretdb, nats] = await Promise.allSettled([
    supervisor.track(
      'infra',
      startFerretDb({
        dataDir: join(config.dataDir, 'ferretdb'),
        logFile: join(config.logDir, 'ferretdb.log'),
        echo,
        ownProcessGroup: true,
        binary: tools.ferretdb,
      }),
      ofServer,
    ),
    supervisor.track(
      'infra',
      startNats({
        dataDir: join(config.dataDir, 'nats'),
        logFile: join(config.logDir, 'nats.log'),
        echo,
        ownProcessGroup: true,
        binary: tools.natsServer,
      }),
      ofServer,
    ),
  ]);
  if (ferretdb.status === 'fulfilled' && nats.status === 'fulfilled') return { ferretdb: ferretdb.value, nats: nats.value };
  const reason: unknown = ferretdb.status === 'rejected' ? ferretdb.reason : nats.status === 'rejected' ? nats.reason : undefined;
  await fail(reason instanceof Error ? reason.message : String(reason), ['ferretdb', 'nats']);
  return undefined;
}

async function startProcess(spec: ProcessSpec, tier: 'service' | 'gateway'): Promise<void> {
  const starting = spawnManaged(process.execPath, [spec.entry], {
    name: spec.name,
    cwd: config.repoRoot,
    env: spec.env,
    logFile: join(config.logDir, `${spec.name}.log`),
    echo: config.logToConsole,
    ownProcessGroup: true,
  });
  await supervisor.track(tier, starting, (child) => child);
}

/** A missing dist/main.js means the build did not run; say so instead of a crash report. */
async function assertBuilt(): Promise<void> {
  const entries = entryPoints(config.repoRoot);
  const missing: string[] = [];
  for (const entry of [...Object.values(entries.services), entries.gateway]) {
    await access(entry).catch(() => missing.push(entry));
  }
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')}; run \`npm run build\``);
}

/** The address clients use: a wildcard listen address is reached over loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
