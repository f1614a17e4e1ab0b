#!/usr/bin/env node
// `npm run bench` and `npm run bench:smoke` run this after bootstrap and build (scripts/bench.mjs).
// It starts the local stack as `npm start` does (FerretDB, NATS, six services and the gateway as
// separate processes), loads the demo fixture with the admin CLI, starts the baselines, then
// measures endpoints and baselines interleaved (ADR 0040).
//
//   --smoke             short runs; compare the ratios with bench/results/baseline.json, exit 1 on
//                       a drop of more than 15 %
//   --write-baseline    also write this run to bench/results/baseline.json
//   --profile ID        run one endpoint (plans, plan, user, signin, refresh) under node
//                       --cpu-prof and print the top frames of each process instead
//   --rounds N, --seconds N   override the mode's rounds and seconds per run
//   --only ID[,ID]      measure only these endpoints (and their baselines), e.g. `plans,event`
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { runAdmin, StackStartError, startStack, Supervisor, tailLogs, type DevstackConfig, type RunningStack } from '@masthead/devstack';
import { freePort } from '@masthead/local-infra';

import { withDefaultHashing } from './baselines/hash-parameters.js';
import { startBaselines, type RunningBaselines } from './baselines/start.js';
import { cpuDeltaMs, readCpu } from './cpu.js';
import { runLoad, type HttpTarget, type LoadResult } from './load.js';
import { formatSummary, summarizeProfile, type CpuProfile } from './profile.js';
import {
  compareWithBaseline,
  cpuPerAnswer,
  formatCpuBreakdown,
  endpointRow,
  formatComparisons,
  formatTable,
  latencyRate,
  roundedRow,
  type BaselineRow,
  type EndpointRow,
  type RoundSample,
} from './report.js';
import { arrangeScenario, benchFixture, type Scenario } from './scenario.js';
import { median, spread } from './stats.js';
import { BASELINES, ENDPOINTS, type BaselineId, type EndpointId } from './targets.js';

interface Mode {
  name: 'full' | 'smoke';
  rounds: number;
  seconds: number;
  latencySeconds: number;
  warmupSeconds: number;
}

// Full: ~7 minutes of load. Smoke: ~1.5 minutes (median of three pairs each), so that
// `npm run bench:smoke` stays within 3 minutes on two cores (2m13s measured, with the stack's
// start and a cached build).
const MODES: Record<Mode['name'], Mode> = {
  full: { name: 'full', rounds: 3, seconds: 10, latencySeconds: 10, warmupSeconds: 3 },
  smoke: { name: 'smoke', rounds: 3, seconds: 3, latencySeconds: 3, warmupSeconds: 1 },
};
const MAX_RATIO_DROP = 0.15;
const PROFILE_SECONDS = 20;
const TAIL_LINES = 20;

const log = (message: string): void => console.log(`[bench] ${message}`);

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    'write-baseline': { type: 'boolean', default: false },
    profile: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    only: { type: 'string' },
  },
});
const base = MODES[args.smoke ? 'smoke' : 'full'];
const positive = (text: string | undefined, fallback: number, name: string): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};
const mode: Mode = {
  ...base,
  rounds: positive(args.rounds, base.rounds, 'rounds'),
  seconds: positive(args.seconds, base.seconds, 'seconds'),
  latencySeconds: positive(args.seconds, base.latencySeconds, 'seconds'),
};
const onlyIds = args.only?.split(',').map((id) => id.trim());
const unknownId = onlyIds?.find((id) => !ENDPOINTS.some((endpoint) => endpoint.id === id));
if (unknownId !== undefined) throw new Error(`--only takes ${ENDPOINTS.map((endpoint) => endpoint.id).join(', ')}; not ${unknownId}`);
/** The endpoints this run measures. */
const SELECTED = onlyIds ? ENDPOINTS.filter((endpoint) => onlyIds.includes(endpoint.id)) : ENDPOINTS;
const profileId = args.profile as EndpointId | undefined;
if (profileId !== undefined && !ENDPOINTS.some((endpoint) => endpoint.id === profileId)) {
  throw new Error(`--profile must be one of ${ENDPOINTS.map((endpoint) => endpoint.id).join(', ')}`);
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const resultsDir = join(repoRoot, 'bench', 'results');

let failure: string | undefined;
const supervisor = new Supervisor({
  onUnexpectedExit(child, status) {
    failure ??= `${child.name} (pid ${child.pid}) exited unexpectedly (code ${status.code}, signal ${status.signal})`;
  },
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    failure ??= `stopped by ${signal}`;
    void supervisor.stop().then(() => process.exit(130));
  });
}
const checkAlive = (): void => {
  if (failure) throw new Error(failure);
};

/** One measured run of an endpoint or baseline. */
interface Sample {
  id: EndpointId | BaselineId;
  round: number;
  /** For a baseline run: the endpoint it was paired with in this round. */
  pairedWith?: EndpointId;
  okPerSecond: number;
  answeredPerSecond: number;
  cpuMsPerRequest: number;
  nonOk: Record<string, number>;
  errors: number;
  cpuMs: number;
  /** CPU milliseconds by process (PID until named). */
  cpuMsByProcess: Record<string, number>;
  seconds: number;
}

const fromLoad = (id: Sample['id'], round: number, result: LoadResult, pairedWith?: EndpointId): Sample => ({
  id,
  round,
  pairedWith,
  okPerSecond: result.okPerSecond,
  answeredPerSecond: result.answeredPerSecond,
  cpuMsPerRequest: result.cpuMsPerRequest,
  nonOk: result.nonOk,
  errors: result.errors,
  cpuMs: result.cpuMs,
  cpuMsByProcess: result.cpuMsByPid,
  seconds: result.seconds,
});

class Bench {
  private readonly httpTargets: Record<EndpointId | 'bare-json' | 'one-hop', HttpTarget>;

  constructor(
    scenario: Scenario,
    private readonly baselines: RunningBaselines,
    private readonly pids: readonly number[],
  ) {
    this.httpTargets = {
      ...scenario.targets,
      'bare-json': { url: baselines.bareJsonUrl, method: 'GET' },
      'one-hop': { url: baselines.oneHopUrl, method: 'GET' },
    };
  }

  private connections(id: EndpointId | BaselineId): number {
    return [...ENDPOINTS, ...BASELINES].find((spec) => spec.id === id)!.connections;
  }

  /** One closed-loop run (or, for the hash baseline, one hashing run) of `seconds`. */
  async measure(id: EndpointId | BaselineId, round: number, seconds: number, pairedWith?: EndpointId): Promise<Sample> {
    checkAlive();
    if (id === 'hash') return this.measureHash(round, seconds, pairedWith);
    const result = await runLoad(this.httpTargets[id], { connections: this.connections(id), seconds, pids: this.pids });
    return fromLoad(id, round, result, pairedWith);
  }

  async latency(id: EndpointId, rate: number, seconds: number): Promise<LoadResult> {
    checkAlive();
    return runLoad(this.httpTargets[id], { connections: this.connections(id), seconds, overallRate: rate, pids: this.pids });
  }

  private async measureHash(round: number, seconds: number, pairedWith?: EndpointId): Promise<Sample> {
    const before = await readCpu(this.pids);
    const response = await fetch(`${this.baselines.hashUrl}/run?ms=${seconds * 1000}`);
    const { hashes, ms } = (await response.json()) as { hashes: number; ms: number };
    const after = await readCpu(this.pids);
    const byPid = cpuDeltaMs(before, after);
    const cpuMs = [...byPid.values()].reduce((sum, value) => sum + value, 0);
    const perSecond = hashes / (ms / 1000);
    return {
      id: 'hash',
      round,
      pairedWith,
      okPerSecond: perSecond,
      answeredPerSecond: perSecond,
      cpuMsPerRequest: cpuMs / Math.max(1, hashes),
      nonOk: {},
      errors: 0,
      cpuMs,
      cpuMsByProcess: Object.fromEntries([...byPid].map(([pid, value]) => [String(pid), value])),
      seconds: ms / 1000,
    };
  }
}

/** Endpoint → the baseline its ratio is taken against (none for absolute targets). */
const baselineOf = (id: EndpointId): BaselineId | undefined => {
  const target = ENDPOINTS.find((endpoint) => endpoint.id === id)!.target;
  return target.kind === 'ratio' ? target.baseline : undefined;
};

/**
 * Every round measures each endpoint next to its baseline, alternating which goes first (A/B
 * then B/A), so that drift in the machine's load hits both sides of a ratio alike.
 */
async function measureRounds(bench: Bench): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let round = 0; round < mode.rounds; round++) {
    for (const endpoint of SELECTED) {
      const baseline = baselineOf(endpoint.id);
      const order: Array<[EndpointId | BaselineId, EndpointId | undefined]> = baseline
        ? [
            [endpoint.id, undefined],
            [baseline, endpoint.id],
          ]
        : [[endpoint.id, undefined]];
      if (round % 2 === 1) order.reverse();
      for (const [id, pairedWith] of order) {
        const sample = await bench.measure(id, round, mode.seconds, pairedWith);
        log(`round ${round + 1}/${mode.rounds} ${id}${pairedWith ? ` (with ${pairedWith})` : ''}: ${sample.okPerSecond.toFixed(0)}/s`);
        samples.push(sample);
      }
      // The bare-JSON baseline goes beside GET /plans, whose body it serves.
      if (endpoint.id === 'plans') samples.push(await bench.measure('bare-json', round, mode.seconds));
    }
  }
  return samples;
}

function roundSamples(samples: readonly Sample[], id: EndpointId): RoundSample[] {
  const baseline = baselineOf(id);
  return samples
    .filter((sample) => sample.id === id)
    .map((sample) => ({
      ...sample,
      baselinePerSecond: baseline
        ? samples.find((other) => other.id === baseline && other.round === sample.round && other.pairedWith === id)?.okPerSecond
        : undefined,
    }));
}

function baselineRows(samples: readonly Sample[]): BaselineRow[] {
  return BASELINES.map(({ id, label }) => {
    const own = samples.filter((sample) => sample.id === id);
    const throughputs = own.map((sample) => sample.okPerSecond);
    return {
      id,
      label,
      throughput: median(throughputs),
      throughputSpread: spread(throughputs),
      cpuMsPerRequest: median(own.map((sample) => sample.cpuMsPerRequest)),
    };
  });
}

async function runBenchmark(config: DevstackConfig, stack: RunningStack, scenario: Scenario): Promise<number> {
  const baselines = await startBaselines(supervisor, config, scenario.plansJson);
  const processes = [...stack.processes, ...baselines.processes];
  const pids = processes.map((child) => child.pid);
  const nameOf = new Map(processes.map((child) => [String(child.pid), child.name]));
  const byName = (byPid: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(byPid).map(([pid, ms]) => [nameOf.get(pid) ?? pid, ms]));
  const bench = new Bench(scenario, baselines, pids);
  const startedAt = new Date();
  const loadBefore = loadavg();

  log(`warming up (${mode.warmupSeconds} s per target)`);
  for (const id of [...SELECTED.map((endpoint) => endpoint.id), 'bare-json', 'one-hop', 'hash'] as const) {
    await bench.measure(id, -1, mode.warmupSeconds);
  }
  const samples = await measureRounds(bench);

  const rows: EndpointRow[] = [];
  const latencyRuns: Record<string, LoadResult> = {};
  for (const endpoint of SELECTED) {
    const rounds = roundSamples(samples, endpoint.id);
    const rate = latencyRate(endpointRow(endpoint, rounds));
    const latency = await bench.latency(endpoint.id, rate, mode.latencySeconds);
    log(`latency ${endpoint.id} at ${rate}/s: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms`);
    latencyRuns[endpoint.id] = latency;
    rows.push(endpointRow(endpoint, rounds, { rate, ...latency }));
  }
  const baselinesTable = baselineRows(samples);

  console.log(
    `\nMasthead benchmark (${mode.name}: ${mode.rounds} rounds × ${mode.seconds} s, ${cpus().length} cores, load ${loadBefore.map((value) => value.toFixed(1)).join(' ')})\n`,
  );
  console.log(formatTable(rows, baselinesTable));
  const breakdown = [...SELECTED, ...BASELINES].map((spec) => {
    const runs = samples
      .filter((sample) => sample.id === spec.id)
      .map((sample) => ({
        cpuMsByProcess: byName(sample.cpuMsByProcess),
        answers: Math.round((sample.okPerSecond > 0 ? sample.okPerSecond : sample.answeredPerSecond) * sample.seconds),
      }));
    return { label: spec.id, perProcess: cpuPerAnswer(runs) };
  });
  console.log(`\n${formatCpuBreakdown(breakdown)}`);
  console.log(
    '\nreq/s: closed loop, median of rounds; p50/p99: open loop at `rate` (50 % of the maximum); CPU: utime+stime of every process (stack, database, NATS, baselines) per 2xx answer; ratio: median of per-round ratios to the baseline measured beside it.',
  );

  const result = {
    version: 1,
    mode: mode.name,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    machine: { cores: cpus().length, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
    settings: { ...mode, connections: Object.fromEntries([...ENDPOINTS, ...BASELINES].map((spec) => [spec.id, spec.connections])) },
    endpoints: rows.map(roundedRow),
    cpuMsPerAnswerByProcess: Object.fromEntries(breakdown.map((row) => [row.label, roundedRow(row.perProcess)])),
    baselines: baselinesTable.map(roundedRow),
    samples: samples.map((sample) => roundedRow({ ...sample, cpuMsByProcess: byName(sample.cpuMsByProcess) })),
    latency: Object.fromEntries(
      Object.entries(latencyRuns).map(([id, run]) => [
        id,
        roundedRow({ ...run, cpuMsByPid: undefined, cpuMsByProcess: byName(run.cpuMsByPid) }),
      ]),
    ),
  };
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${mode.name === 'smoke' ? 'smoke-' : ''}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  await writeFile(file, text);
  log(`results written to ${file}`);
  if (args['write-baseline']) {
    await writeFile(join(resultsDir, 'baseline.json'), text);
    log('written to bench/results/baseline.json too');
  }
  if (!args.smoke) return 0;

  let baseline: { endpoints: EndpointRow[] };
  try {
    baseline = JSON.parse(await readFile(join(resultsDir, 'baseline.json'), 'utf8')) as { endpoints: EndpointRow[] };
  } catch (error) {
    console.error(`[bench] cannot read bench/results/baseline.json: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const { comparisons, failed } = compareWithBaseline(rows, baseline.endpoints, MAX_RATIO_DROP);
  console.log(`\n${formatComparisons(comparisons, MAX_RATIO_DROP)}`);
  if (failed) console.error(`[bench] a ratio dropped by more than ${MAX_RATIO_DROP * 100} % from bench/results/baseline.json`);
  return failed ? 1 : 0;
}

/** Loads one endpoint under --cpu-prof, stops the stack (profiles are written at exit) and summarises them. */
async function runProfile(id: EndpointId, profileDir: string, scenario: Scenario): Promise<number> {
  const endpoint = ENDPOINTS.find((spec) => spec.id === id)!;
  log(`profiling ${endpoint.label} for ${PROFILE_SECONDS} s`);
  const result = await runLoad(scenario.targets[id], { connections: endpoint.connections, seconds: PROFILE_SECONDS, pids: [] });
  log(`${result.okPerSecond.toFixed(0)} 2xx/s, non-2xx ${JSON.stringify(result.nonOk)}`);
  await supervisor.stop();
  const summaries: Array<{ file: string; summary: ReturnType<typeof summarizeProfile> }> = [];
  for (const file of (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(await readFile(join(profileDir, file), 'utf8')) as CpuProfile;
    summaries.push({ file, summary: summarizeProfile(profile, 25) });
  }
  summaries.sort((a, b) => b.summary.totalMs - a.summary.totalMs);
  const text = summaries
    .filter(({ summary }) => summary.totalMs > 500)
    .map(({ file, summary }) => formatSummary(file.replace('.cpuprofile', ''), summary))
    .join('\n\n');
  console.log(`\n${text}`);
  await mkdir(resultsDir, { recursive: true });
  const out = join(resultsDir, `profile-${id}-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`);
  await writeFile(out, `${endpoint.label}: ${result.okPerSecond.toFixed(0)} 2xx/s under --cpu-prof\n\n${text}\n`);
  log(`profile summary written to ${out} (raw profiles in ${profileDir})`);
  return 0;
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-bench-'));
  const config: DevstackConfig = Object.freeze({
    host: '127.0.0.1',
    port: await freePort(),
    // The production default: the access log's cost per request is part of what is measured.
    logLevel: 'info',
    logToConsole: false,
    repoRoot,
    dataDir,
    logDir: join(dataDir, 'logs'),
  });
  const profileDir = join(dataDir, 'profiles');
  let keepData = false;
  try {
    log(`starting the stack (data and logs in ${dataDir})`);
    const nodeArgs = profileId
      ? (name: string) => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`]
      : undefined;
    const stack = await startStack(supervisor, config, { nodeArgs, env: withDefaultHashing(process.env) }, log);
    checkAlive();
    if (!stack) throw new Error('stopped while starting');
    const fixturePath = join(dataDir, 'bench-fixture.json');
    const demo = JSON.parse(await readFile(join('fixtures', 'demo.json'), 'utf8')) as Parameters<typeof benchFixture>[0];
    await writeFile(fixturePath, JSON.stringify(benchFixture(demo)));
    const fixture = await runAdmin(supervisor, config, stack.topology.sharedEnv, ['load-fixture', fixturePath]);
    if (fixture !== 0) throw new StackStartError(`loading the demo fixture with the admin CLI failed (exit code ${fixture})`, ['admin']);
    const scenario = await arrangeScenario(stack.origin);
    log(`stack ready at ${stack.origin}; demo fixture loaded`);
    if (profileId) {
      keepData = true;
      return await runProfile(profileId, profileDir, scenario);
    }
    return await runBenchmark(config, stack, scenario);
  } catch (error) {
    keepData = true;
    console.error(`[bench] ${failure ?? (error instanceof Error ? error.message : String(error))}`);
    const logs = error instanceof StackStartError ? error.logs : 'all';
    if (logs !== 'none') {
      console.error(await tailLogs(config.logDir, TAIL_LINES, logs === 'all' ? undefined : logs).catch(() => ''));
    }
    return 1;
  } finally {
    await supervisor.stop();
    if (!keepData) await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
