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
import { Supervisor } from './supervisor.js';

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

let mailSink: MailSink | undefined;

/** Stops everything (by PID, in tier order) and exits; only the first call counts. */
function shutdown(code: number): void {
  if (supervisor.isStopping) return;
  const started = performance.now();
  log('stopping');
  void mailSink?.close().catch(() => undefined);
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
  await mkdir(config.logDir, { recursive: true });
  await clearLogs(config.logDir);
  const stack = await startStack(supervisor, config, {}, log);
  if (!stack) return;
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
