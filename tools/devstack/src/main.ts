#!/usr/bin/env node
// `npm start` runs this after bootstrap and build: FerretDB and NATS from local binaries, the
// six gRPC services, the gateway, then the demo fixture. Data stays in <repo>/.data.
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { banner } from './banner.js';
import { loadConfig } from './config.js';
import { clearLogs, tailLogs } from './logs.js';
import { startMailSink, type MailSink } from './mail-sink.js';
import { runAdmin, StackStartError, startStack } from './stack.js';
import { writeStackFile, removeStackFile } from './stack-file.js';
import { DEFAULT_RESTART_POLICY, Supervisor } from './supervisor.js';

const TAIL_LINES = 30;

const log = (message: string): void => console.log(`[devstack] ${message}`);
const since = (start: number): string => `${Math.round(performance.now() - start)} ms`;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const config = loadConfig(process.env, repoRoot);

// A process that dies is started again with back-off (its log says why it died); the stack
// stops only on its own signal.
const supervisor = new Supervisor(
  {
    onUnexpectedExit(child, status) {
      log(`${child.name} (pid ${child.pid}) exited unexpectedly (code ${status.code}, signal ${status.signal}); see ${logOf(child.name)}`);
    },
    onRestartScheduled(name, attempt, delayMs) {
      log(`restarting ${name} in ${delayMs} ms (restart ${attempt})`);
    },
    onRestarted(child, attempt) {
      log(`${child.name} runs again (pid ${child.pid}, restart ${attempt})`);
    },
    onRestartFailed(name, error) {
      log(`${name} did not start: ${error instanceof Error ? error.message : String(error)}`);
    },
  },
  { restart: DEFAULT_RESTART_POLICY },
);
const logOf = (name: string): string => join(config.logDir, `${name}.log`);

let mailSink: MailSink | undefined;

/** Stops everything (by PID, in tier order) and exits; only the first call counts. */
function shutdown(code: number): void {
  if (supervisor.isStopping) return;
  const started = performance.now();
  log('stopping');
  void mailSink?.close().catch(() => undefined);
  void supervisor.stop().then(async () => {
    await removeStackFile(config.dataDir).catch(() => undefined);
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

/** What the admin CLI reads from the stack file: the addresses and the database and bus. */
const adminEnv = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => /^(\w+_ADDR|MONGO_URL|NATS_URL|MASTHEAD_ENV)$/.test(entry[0]) && entry[1] !== undefined,
    ),
  );

async function main(): Promise<void> {
  await mkdir(config.logDir, { recursive: true });
  await clearLogs(config.logDir);
  const stack = await startStack(supervisor, config, {}, log);
  if (!stack) return;
  await writeStackFile(config.dataDir, {
    pid: process.pid,
    started_at: new Date().toISOString(),
    api: `${stack.origin}/api/v1`,
    env: adminEnv(stack.topology.sharedEnv),
    metrics: Object.fromEntries([...stack.topology.services, ...stack.topology.gateways].map((spec) => [spec.name, spec.metricsUrl])),
  });
  // Codes mailed to members land in .data/mail/ (README, "Mail in development").
  mailSink = await startMailSink(stack.infra.nats.url, join(config.dataDir, 'mail'), log);

  // Runs on every start, so `load-fixture` treats an already loaded fixture as success.
  const fixture = await runAdmin(supervisor, config, stack.topology.sharedEnv, ['load-fixture', join('fixtures', 'demo.json')]);
  if (supervisor.isStopping) return;
  if (fixture === undefined) log('warning: tools/admin/dist/cli.js is missing; the demo fixture was not loaded');
  else if (fixture !== 0) return fail(`loading fixtures/demo.json failed (exit code ${fixture})`, ['admin']);
  console.log(banner(`${stack.origin}/api/v1`, performance.now(), fixture !== undefined));
}

main().catch((error: unknown) =>
  fail(error instanceof Error ? error.message : String(error), error instanceof StackStartError ? error.logs : 'none'),
);
