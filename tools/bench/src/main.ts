#!/usr/bin/env node
// `npm run bench` and `npm run bench:smoke` run this after bootstrap and build (scripts/bench.mjs).
// It starts the local stack as `npm start` does (FerretDB, NATS, six services and the gateway as
// separate processes), loads the demo fixture with the admin CLI, starts the baselines, then
// measures endpoints and baselines interleaved (ADR 0040).
//
//   --smoke             short runs; compare the ratios with bench/results/baseline.json, exit 1 on
//                       a drop of more than 15 %
//   --write-baseline    also write this run to bench/results/baseline.json
//   --profile ID        run one HTTP endpoint (plans, plan, user, signin, refresh, jwks, …) under node
//                       --cpu-prof and print the top frames of each process instead
//   --rounds N, --seconds N   override the mode's rounds and seconds per run
//   --scale N           the scale run's large size: N members, 10 sessions each (default 100 000;
//                       the full run includes the scale run, the smoke run only with --scale)
//   --no-scale          leave the scale run out of a full run
//   --scale-only        only the scale run (no ratio rounds)
//   --only ID[,ID]      measure only these endpoints (and their baselines), e.g. `plans,event`
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { runAdmin, StackStartError, startStack, Supervisor, tailLogs, type DevstackConfig, type RunningStack } from '@masthead/devstack';
import { freePort, resolveTools, runSql } from '@masthead/local-infra';

import { withDefaultHashing } from './baselines/hash-parameters.js';
import { startBaselines, type RunningBaselines } from './baselines/start.js';
import { cpuDeltaMs, readCpu } from './cpu.js';
import { CommandCounter, commandDelta, roundTrips, type CommandsByProcess } from './db-commands.js';
import { runLoad, sendEach, type HttpTarget, type LoadResult } from './load.js';
import { formatSummary, summarizeProfile, type CpuProfile } from './profile.js';
import {
  compareWithBaseline,
  cpuPerAnswer,
  formatCpuBreakdown,
  endpointRow,
  formatComparisons,
  formatTable,
  formatScale,
  latencyRate,
  perAnswer,
  roundedRow,
  scaleRow,
  type BaselineRow,
  type EndpointRow,
  type RoundSample,
  type ScaleRow,
} from './report.js';
import { LARGE_MEMBERS, ScaleSeeder, scaleTargets, sizeOf, SMALL_MEMBERS, type ScaleSize } from './scale.js';
import { arrangeScenario, benchFixture, DEMO, type HttpEndpointId, type Scenario } from './scenario.js';
import { median, spread } from './stats.js';
import { BASELINES, ENDPOINTS, IN_PROCESS, type BaselineId, type EndpointId, type EndpointSpec } from './targets.js';

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
    scale: { type: 'string' },
    'no-scale': { type: 'boolean', default: false },
    'scale-only': { type: 'boolean', default: false },
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
// The scale run: in a full run unless --no-scale, in a smoke run only when --scale asks for it.
const scaleMembers = args['no-scale']
  ? undefined
  : args.scale !== undefined || args['scale-only']
    ? positive(args.scale, LARGE_MEMBERS, 'scale')
    : args.smoke
      ? undefined
      : LARGE_MEMBERS;
if (scaleMembers !== undefined && scaleMembers <= SMALL_MEMBERS) throw new Error(`--scale must be above ${SMALL_MEMBERS} (the small size)`);
if (args['scale-only'] && scaleMembers === undefined) throw new Error('--scale-only and --no-scale exclude each other');
const onlyIds = args.only?.split(',').map((id) => id.trim());
const unknownId = onlyIds?.find((id) => !ENDPOINTS.some((endpoint) => endpoint.id === id));
if (unknownId !== undefined) throw new Error(`--only takes ${ENDPOINTS.map((endpoint) => endpoint.id).join(', ')}; not ${unknownId}`);
/** The endpoints this run measures. */
const SELECTED = onlyIds ? ENDPOINTS.filter((endpoint) => onlyIds.includes(endpoint.id)) : ENDPOINTS;
const profileId = args.profile as HttpEndpointId | undefined;
if (profileId !== undefined && (!ENDPOINTS.some((endpoint) => endpoint.id === profileId) || IN_PROCESS.has(profileId))) {
  const loaded = ENDPOINTS.filter((endpoint) => !IN_PROCESS.has(endpoint.id)).map((endpoint) => endpoint.id);
  throw new Error(`--profile must be one of ${loaded.join(', ')}`);
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
  /** 2xx answers (all answers when none succeeded): what per-answer figures divide by. */
  answers: number;
  /** Database commands the services sent during the run, by process and command. */
  dbCommands: CommandsByProcess;
}

const fromLoad = (id: Sample['id'], round: number, result: LoadResult, dbCommands: CommandsByProcess, pairedWith?: EndpointId): Sample => ({
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
  answers: answersOf(result),
  dbCommands,
});

const answersOf = (result: LoadResult): number => (result.ok > 0 ? result.ok : Math.round(result.answeredPerSecond * result.seconds));

/** What runs inside a bench process rather than over HTTP: the hash baseline and the verification. */
type RunServer = 'hash' | 'verify';

class Bench {
  private readonly httpTargets: Record<HttpEndpointId | Exclude<BaselineId, 'hash'>, HttpTarget>;

  constructor(
    scenario: Scenario,
    private readonly baselines: RunningBaselines,
    private readonly pids: readonly number[],
    private readonly commands: CommandCounter,
  ) {
    this.httpTargets = {
      ...scenario.targets,
      'bare-json': { url: baselines.bareJsonUrl, method: 'GET' },
      'one-hop': { url: baselines.oneHopUrl, method: 'GET' },
      'refresh-bare': scenario.refreshBare,
    };
  }

  private connections(id: EndpointId | BaselineId): number {
    return [...ENDPOINTS, ...BASELINES].find((spec) => spec.id === id)!.connections;
  }

  /** One closed-loop run (or, for the hash baseline and the verification, one run of their process) of `seconds`. */
  async measure(id: EndpointId | BaselineId, round: number, seconds: number, pairedWith?: EndpointId): Promise<Sample> {
    checkAlive();
    if (id === 'hash' || id === 'verify') return this.measureRunServer(id, round, seconds, pairedWith);
    const { result, dbCommands } = await this.counted(() =>
      runLoad(this.httpTargets[id], { connections: this.connections(id), seconds, pids: this.pids }),
    );
    return fromLoad(id, round, result, dbCommands, pairedWith);
  }

  async latency(
    id: HttpEndpointId,
    rate: number,
    seconds: number,
    target = this.httpTargets[id],
  ): Promise<LoadResult & { dbCommands: CommandsByProcess }> {
    checkAlive();
    const { result, dbCommands } = await this.counted(() =>
      runLoad(target, { connections: this.connections(id), seconds, overallRate: rate, pids: this.pids }),
    );
    return { ...result, dbCommands };
  }

  /** A closed-loop run of any target (the scale run's rotations). */
  async maximum(id: EndpointId, target: HttpTarget, seconds: number): Promise<LoadResult> {
    checkAlive();
    return runLoad(target, { connections: this.connections(id), seconds, pids: this.pids });
  }

  /** Runs `load` between two snapshots of the services' database command counts. */
  private async counted<T>(load: () => Promise<T>): Promise<{ result: T; dbCommands: CommandsByProcess }> {
    const before = await this.commands.snapshot();
    const result = await load();
    return { result, dbCommands: commandDelta(before, await this.commands.snapshot()) };
  }

  /** A run of the hash or verification process: `GET /run?ms=N` answers how many it did in how long. */
  private async measureRunServer(id: RunServer, round: number, seconds: number, pairedWith?: EndpointId): Promise<Sample> {
    const url = id === 'hash' ? this.baselines.hashUrl : this.baselines.verifyUrl;
    const before = await readCpu(this.pids);
    const response = await fetch(`${url}/run?ms=${seconds * 1000}`);
    const body = (await response.json()) as { hashes?: number; verified?: number; ms: number; error?: string };
    if (response.status !== 200) throw new Error(`${id} run answered ${response.status}: ${body.error ?? ''}`);
    const done = (id === 'hash' ? body.hashes : body.verified) ?? 0;
    const after = await readCpu(this.pids);
    const byPid = cpuDeltaMs(before, after);
    const cpuMs = [...byPid.values()].reduce((sum, value) => sum + value, 0);
    const perSecond = done / (body.ms / 1000);
    return {
      id,
      round,
      pairedWith,
      okPerSecond: perSecond,
      answeredPerSecond: perSecond,
      cpuMsPerRequest: cpuMs / Math.max(1, done),
      nonOk: {},
      errors: 0,
      cpuMs,
      cpuMsByProcess: Object.fromEntries([...byPid].map(([pid, value]) => [String(pid), value])),
      seconds: body.ms / 1000,
      answers: done,
      dbCommands: {},
    };
  }
}

const specOf = (id: EndpointId): EndpointSpec => ENDPOINTS.find((endpoint) => endpoint.id === id)!;

/** Endpoint → what is measured beside it (a baseline or another endpoint); none for absolute targets. */
const baselineOf = (id: EndpointId): BaselineId | EndpointId | undefined => {
  const target = specOf(id).target;
  return target.kind === 'absolute' ? undefined : target.baseline;
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

function roundSamples(samples: readonly Sample[], id: EndpointId, byName: Measured['byName']): RoundSample[] {
  const baseline = baselineOf(id);
  const target = specOf(id).target;
  /** CPU ms per answer of a `cpu-delta` target's processes in one run. */
  const targetCpu = (sample: Sample, processes: readonly string[]): number => {
    const named = byName(sample.cpuMsByProcess);
    return processes.reduce((sum, name) => sum + (named[name] ?? 0), 0) / Math.max(1, sample.answers);
  };
  return (
    samples
      // Its own runs: an endpoint measured beside another (GET /user beside the verification) is paired.
      .filter((sample) => sample.id === id && sample.pairedWith === undefined)
      .map((sample) => {
        const paired = baseline
          ? samples.find((other) => other.id === baseline && other.round === sample.round && other.pairedWith === id)
          : undefined;
        return {
          ...sample,
          ...perAnswerTrips(sample),
          baselinePerSecond: paired?.okPerSecond,
          cpuDeltaMs:
            target.kind === 'cpu-delta' && paired ? targetCpu(sample, target.processes) - targetCpu(paired, target.processes) : undefined,
        };
      })
  );
}

function perAnswerTrips(sample: Pick<Sample, 'dbCommands' | 'answers'>): { dbRoundTrips: number; dbWrites: number } {
  const trips = roundTrips(sample.dbCommands);
  const answers = Math.max(1, sample.answers);
  return { dbRoundTrips: trips.total / answers, dbWrites: trips.writes / answers };
}

/** Database commands per answer over all of an endpoint's runs, by process and command name. */
function commandsPerAnswer(samples: readonly Sample[]): CommandsByProcess {
  const answers = Math.max(
    1,
    samples.reduce((sum, sample) => sum + sample.answers, 0),
  );
  const totals: CommandsByProcess = {};
  for (const sample of samples) {
    for (const [name, commands] of Object.entries(sample.dbCommands)) {
      for (const [command, count] of Object.entries(commands)) {
        totals[name] ??= {};
        totals[name][command] = (totals[name][command] ?? 0) + count / answers;
      }
    }
  }
  return totals;
}

const commandsText = (commands: CommandsByProcess): string =>
  Object.entries(commands)
    .filter(([, byCommand]) => Object.values(byCommand).some((count) => count >= 0.01))
    .map(
      ([name, byCommand]) =>
        `${name} ${Object.entries(byCommand)
          .filter(([, count]) => count >= 0.01)
          .map(([command, count]) => `${command}×${count.toFixed(2)}`)
          .join(' ')}`,
    )
    .join('; ') || 'none';

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

/** The stack's processes as the bench measures them: PostgreSQL apart from FerretDB, baselines too. */
interface Measured {
  bench: Bench;
  byName: (byPid: Record<string, number>) => Record<string, number>;
}

async function measuredStack(config: DevstackConfig, stack: RunningStack, scenario: Scenario): Promise<Measured> {
  const baselines = await startBaselines(supervisor, config, scenario);
  // FerretDB's handle stands for PostgreSQL too; its postmaster (and, through it, every backend) is measured apart.
  const postmasterPid = Number((await readFile(join(config.dataDir, 'ferretdb', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const processes = [...stack.processes, { pid: postmasterPid, name: 'postgres' }, ...baselines.processes];
  const pids = processes.map((child) => child.pid);
  const nameOf = new Map(processes.map((child) => [String(child.pid), child.name]));
  const byName = (byPid: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(byPid).map(([pid, ms]) => [nameOf.get(pid) ?? pid, ms]));
  const services = new Set(stack.topology.services.map((service) => service.name));
  const counter = new CommandCounter(
    commandCountsDir(config),
    stack.processes.filter((child) => services.has(child.name)).map((child) => child.pid),
  );
  return { bench: new Bench(scenario, baselines, pids, counter), byName };
}

const commandCountsDir = (config: DevstackConfig): string => join(config.dataDir, 'db-commands');

async function runBenchmark(measured: Measured, scaleRun: (() => Promise<ScaleResult>) | undefined): Promise<number> {
  const { bench, byName } = measured;
  const startedAt = new Date();
  const loadBefore = loadavg();

  log(`warming up (${mode.warmupSeconds} s per target)`);
  for (const id of [...SELECTED.map((endpoint) => endpoint.id), ...BASELINES.map((baseline) => baseline.id)] as const) {
    await bench.measure(id, -1, mode.warmupSeconds);
  }
  const samples = await measureRounds(bench);

  const rows: EndpointRow[] = [];
  const latencyRuns: Record<string, LoadResult> = {};
  for (const endpoint of SELECTED) {
    const rounds = roundSamples(samples, endpoint.id, byName);
    // Not an HTTP load: no open-loop latency run.
    if (IN_PROCESS.has(endpoint.id)) {
      rows.push(endpointRow(endpoint, rounds));
      continue;
    }
    const id = endpoint.id as HttpEndpointId;
    const rate = latencyRate(endpointRow(endpoint, rounds));
    const latency = await bench.latency(id, rate, mode.latencySeconds);
    log(`latency ${id} at ${rate}/s: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms`);
    latencyRuns[id] = latency;
    rows.push(endpointRow(endpoint, rounds, { rate, ...latency }));
  }
  const baselinesTable = baselineRows(samples);
  // Last: it loads a million sessions, which the ratio rounds must not see.
  const scale = scaleRun ? await scaleRun() : undefined;

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
  const tripsBreakdown = SELECTED.map((spec) => {
    const runs = samples.filter((sample) => sample.id === spec.id);
    return {
      label: spec.id,
      perProcess: perAnswer(runs.map((run) => ({ byProcess: roundTrips(run.dbCommands).byProcess, answers: run.answers }))),
      commands: commandsPerAnswer(runs),
    };
  });
  console.log(`\n${formatCpuBreakdown(tripsBreakdown, 0.01, 'db round trips per answer')}`);
  for (const row of tripsBreakdown) console.log(`  ${row.label}: ${commandsText(row.commands)}`);
  if (scale) console.log(`\n${scaleText(scale)}`);
  console.log(
    '\nreq/s: closed loop, median of rounds; p50/p99: open loop at `rate` (50 % of the maximum); CPU: utime+stime of every process tree (stack, FerretDB, PostgreSQL with its backends, NATS, baselines) per 2xx answer; db rt/wr: database commands (all / writes) the services sent per 2xx answer, from driver command counts; ratio: median of per-round ratios to the baseline measured beside it.',
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
    dbCommandsPerAnswer: Object.fromEntries(tripsBreakdown.map((row) => [row.label, roundedRow(row.commands)])),
    ...(scale ? { scale: roundedRow(scale) } : {}),
    baselines: baselinesTable.map(roundedRow),
    samples: samples.map((sample) => roundedRow({ ...sample, cpuMsByProcess: byName(sample.cpuMsByProcess) })),
    latency: Object.fromEntries(
      Object.entries(latencyRuns).map(([id, run]) => [
        id,
        roundedRow({ ...run, cpuMsByPid: undefined, cpuMsByProcess: byName(run.cpuMsByPid) }),
      ]),
    ),
  };
  const text = await writeResult(mode.name === 'smoke' ? 'smoke-' : '', startedAt, result);
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

/** The scale run's outcome, as the result file carries it (issue 14). */
interface ScaleResult {
  small: ScaleSize;
  large: ScaleSize;
  endpoints: ScaleRow[];
}

/** The endpoints of the scale comparison. */
const SCALE_ENDPOINTS = ['user', 'signin', 'refresh', 'plans'] as const;

/**
 * Seeds `SMALL_MEMBERS` members (1 000 sessions), measures p50/p99 of each scale endpoint at half
 * its maximum, seeds up to `members` (1 000 000 sessions at the default), lets PostgreSQL vacuum
 * and analyze what was loaded, and measures again at the same rates. Each endpoint rotates over
 * as many distinct seeded members at both sizes, spread over the whole population.
 */
async function runScale(bench: Bench, stack: RunningStack, config: DevstackConfig, members: number): Promise<ScaleResult> {
  const api = `${stack.origin}/api/v1`;
  const seeder = await ScaleSeeder.open(
    stack.infra.ferretdb.url,
    stack.topology.sharedEnv['MONGO_DB_PREFIX'] ?? 'masthead_',
    DEMO.resourceKey,
  );
  try {
    const [small, large] = [sizeOf(SMALL_MEMBERS), sizeOf(members)];
    log(`scale: seeding ${small.members} members (${small.sessions} sessions)`);
    await seeder.seed(0, SMALL_MEMBERS, log);
    const measureAt = async (size: ScaleSize, rates?: Record<string, number>) => {
      const targets = scaleTargets(api, DEMO.resourceKey, seeder, size.members);
      const runs: Record<string, { rate: number; p50Ms: number; p99Ms: number }> = {};
      for (const id of SCALE_ENDPOINTS) {
        // Every member of the rotation once (per-member caches as warm at both sizes), then a
        // closed-loop warm-up, which also finds the maximum at the small size.
        await sendEach(targets[id]);
        const warm = await bench.maximum(id, targets[id], mode.warmupSeconds + (rates ? 0 : mode.seconds));
        const rate =
          rates?.[id] ?? latencyRate({ throughput: warm.okPerSecond, answeredPerSecond: warm.answeredPerSecond, notImplemented: false });
        const run = await bench.latency(id, rate, mode.latencySeconds, targets[id]);
        if (run.ok === 0) throw new Error(`scale: ${id} answered no 2xx at ${size.sessions} sessions (${JSON.stringify(run.nonOk)})`);
        log(
          `scale ${id} @${size.sessions} sessions, ${rate}/s: p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, ${roundTrips(run.dbCommands).total / Math.max(1, run.ok)} db rt/answer`,
        );
        runs[id] = { rate, p50Ms: run.p50Ms, p99Ms: run.p99Ms };
      }
      return runs;
    };
    const atSmall = await measureAt(small);
    log(`scale: seeding members ${SMALL_MEMBERS}–${members} (${large.sessions} sessions in all)`);
    await seeder.seed(SMALL_MEMBERS, members, log);
    await settle(config);
    const atLarge = await measureAt(large, Object.fromEntries(Object.entries(atSmall).map(([id, run]) => [id, run.rate])));
    const endpoints = SCALE_ENDPOINTS.map((id) =>
      scaleRow(
        ENDPOINTS.find((spec) => spec.id === id)!,
        atSmall[id]!.rate,
        atSmall[id]!,
        atLarge[id]!,
      ),
    );
    return { small, large, endpoints };
  } finally {
    await seeder.close();
  }
}

/**
 * After a bulk load, what a database in service has long done: vacuum (visibility map), analyze
 * (statistics) and a checkpoint (the load's dirty pages written out). The plans do not depend on
 * it (ADR 0190); the measurement should not include autovacuum catching up on millions of rows,
 * nor the checkpointer writing them back while the first endpoint is measured.
 */
async function settle(config: DevstackConfig): Promise<void> {
  const started = Date.now();
  const port = Number((await readFile(join(config.dataDir, 'ferretdb', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[3]);
  const { postgresBinDir } = await resolveTools();
  // Separate statements: VACUUM refuses to run inside the transaction of a multi-statement string.
  await runSql(postgresBinDir, { port }, 'VACUUM (ANALYZE);');
  await runSql(postgresBinDir, { port }, 'CHECKPOINT;');
  log(`scale: vacuumed, analyzed and checkpointed in ${Math.round((Date.now() - started) / 1000)} s`);
}

const scaleText = (scale: ScaleResult): string =>
  `Scale: p50/p99 at ${scale.small.sessions} and ${scale.large.sessions} sessions (${scale.small.members} and ${scale.large.members} members), same open-loop rate\n${formatScale(scale.endpoints, scale.small, scale.large)}`;

async function writeResult(prefix: string, startedAt: Date, result: object): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${prefix}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  await writeFile(file, text);
  log(`results written to ${file}`);
  return text;
}

/** `--scale-only`: the scale run alone, its own result file. */
async function runScaleOnly(scaleRun: () => Promise<ScaleResult>): Promise<number> {
  const startedAt = new Date();
  const scale = await scaleRun();
  console.log(`\n${scaleText(scale)}`);
  await writeResult('scale-', startedAt, {
    version: 1,
    mode: 'scale',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: gitCommit(),
    scale: roundedRow(scale),
  });
  return 0;
}

/** Loads one endpoint under --cpu-prof, stops the stack (profiles are written at exit) and summarises them. */
async function runProfile(id: HttpEndpointId, profileDir: string, scenario: Scenario): Promise<number> {
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
    const env = { ...withDefaultHashing(process.env), DB_COMMAND_COUNTS_DIR: commandCountsDir(config) };
    const stack = await startStack(supervisor, config, { nodeArgs, env }, log);
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
    const measured = await measuredStack(config, stack, scenario);
    const scaleRun = scaleMembers === undefined ? undefined : () => runScale(measured.bench, stack, config, scaleMembers);
    return await (args['scale-only'] && scaleRun ? runScaleOnly(scaleRun) : runBenchmark(measured, scaleRun));
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
