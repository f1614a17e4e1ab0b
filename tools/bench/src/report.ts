// The table and the baseline check, from measured numbers. Pure: unit-tested in test/report.test.ts.
import { median, round, spread, type Spread } from './stats.js';
import type { BaselineId, EndpointSpec, Target } from './targets.js';

/** One round of an endpoint's closed-loop run, with its paired baseline run. */
export interface RoundSample {
  okPerSecond: number;
  answeredPerSecond: number;
  cpuMsPerRequest: number;
  nonOk: Record<string, number>;
  errors: number;
  /** The paired baseline's throughput in the same round (hashes/s or 2xx/s); absent for absolute targets. */
  baselinePerSecond?: number;
  /** Database commands (all; writes) per answer, over every service; absent when not counted. */
  dbRoundTrips?: number;
  dbWrites?: number;
  /** For a `cpu-delta` target: CPU ms per answer of its processes beyond the paired baseline's. */
  cpuDeltaMs?: number;
}

/** The endpoint's open-loop run at a fixed rate. */
export interface LatencySample {
  rate: number;
  p50Ms: number;
  p99Ms: number;
  nonOk: Record<string, number>;
  errors: number;
}

export interface EndpointRow {
  id: string;
  label: string;
  /** Median 2xx/s over the rounds (closed loop). */
  throughput: number;
  throughputSpread: Spread;
  /** Median of all answers/s, 2xx or not. */
  answeredPerSecond: number;
  /** Open-loop latency at `latencyRate` requests/s (50 % of the maximum). */
  latencyRate: number;
  p50Ms: number;
  p99Ms: number;
  /** Median CPU milliseconds per 2xx answer, summed over every process. */
  cpuMsPerRequest: number;
  /** Median database commands per answer over every service (driver command counts), and writes. */
  dbRoundTrips: number | null;
  dbWrites: number | null;
  /** Non-2xx answers by status over every run of the endpoint (never counted as throughput). */
  nonOk: Record<string, number>;
  errors: number;
  target: Target;
  baselineThroughput: number | null;
  /** Median of the per-round ratios endpoint/baseline; null for other targets. */
  ratio: number | null;
  ratioSpread: Spread | null;
  /** Median of the per-round CPU differences of a `cpu-delta` target; null for other targets. */
  cpuDeltaMs: number | null;
  /** Every answer was 501: the operation is not built yet. */
  notImplemented: boolean;
  met: boolean;
}

export interface BaselineRow {
  id: BaselineId;
  label: string;
  throughput: number;
  throughputSpread: Spread;
  cpuMsPerRequest: number;
}

const addCounts = (into: Record<string, number>, counts: Record<string, number>): void => {
  for (const [status, count] of Object.entries(counts)) into[status] = (into[status] ?? 0) + count;
};

/** An operation counts as not implemented when nothing succeeded and it answered 501. */
export function isNotImplemented(ok: number, nonOk: Record<string, number>): boolean {
  return ok === 0 && (nonOk['501'] ?? 0) > 0;
}

/** Summarises an endpoint's rounds and latency run into its table row and judges its target. */
export function endpointRow(
  spec: Pick<EndpointSpec, 'id' | 'label' | 'target'>,
  rounds: readonly RoundSample[],
  latency?: LatencySample,
): EndpointRow {
  const throughputs = rounds.map((sample) => sample.okPerSecond);
  const nonOk: Record<string, number> = {};
  let errors = 0;
  for (const sample of rounds) {
    addCounts(nonOk, sample.nonOk);
    errors += sample.errors;
  }
  if (latency) {
    addCounts(nonOk, latency.nonOk);
    errors += latency.errors;
  }
  const throughput = median(throughputs);
  const notImplemented = isNotImplemented(
    throughputs.reduce((sum, value) => sum + value, 0),
    nonOk,
  );

  let ratio: number | null = null;
  let ratioSpread: Spread | null = null;
  const paired = rounds.filter((sample) => sample.baselinePerSecond !== undefined && sample.baselinePerSecond > 0);
  const baselineThroughput =
    spec.target.kind !== 'absolute' && paired.length > 0 ? median(paired.map((sample) => sample.baselinePerSecond!)) : null;
  if (spec.target.kind === 'ratio') {
    const ratios = paired.map((sample) => sample.okPerSecond / sample.baselinePerSecond!);
    ratioSpread = spread(ratios);
    ratio = ratios.length > 0 ? ratioSpread.median : null;
  }
  const deltas = rounds.map((sample) => sample.cpuDeltaMs).filter((delta) => delta !== undefined);
  const cpuDeltaMs = spec.target.kind === 'cpu-delta' && deltas.length > 0 ? median(deltas) : null;
  const met = !notImplemented && meets(spec.target, { ratio, throughput, cpuDeltaMs });

  return {
    id: spec.id,
    label: spec.label,
    throughput,
    throughputSpread: spread(throughputs),
    answeredPerSecond: median(rounds.map((sample) => sample.answeredPerSecond)),
    latencyRate: latency?.rate ?? Number.NaN,
    p50Ms: latency?.p50Ms ?? Number.NaN,
    p99Ms: latency?.p99Ms ?? Number.NaN,
    cpuMsPerRequest: median(rounds.map((sample) => sample.cpuMsPerRequest)),
    dbRoundTrips: medianOf(rounds.map((sample) => sample.dbRoundTrips)),
    dbWrites: medianOf(rounds.map((sample) => sample.dbWrites)),
    nonOk,
    errors,
    target: spec.target,
    baselineThroughput,
    ratio,
    ratioSpread,
    cpuDeltaMs,
    notImplemented,
    met,
  };
}

/** Whether the measured figure of a target's kind meets it. */
function meets(target: Target, measured: { ratio: number | null; throughput: number; cpuDeltaMs: number | null }): boolean {
  const figure = target.kind === 'ratio' ? measured.ratio : target.kind === 'absolute' ? measured.throughput : measured.cpuDeltaMs;
  if (figure === null || !Number.isFinite(figure)) return false;
  return target.kind === 'cpu-delta' ? figure <= target.max : figure >= target.min;
}

/** The median of the values measured; null when none was. */
function medianOf(values: ReadonlyArray<number | undefined>): number | null {
  const measured = values.filter((value): value is number => value !== undefined);
  return measured.length > 0 ? median(measured) : null;
}

/** The fixed request rate for the latency run: half the measured maximum, at least 1/s. */
export function latencyRate(row: Pick<EndpointRow, 'throughput' | 'answeredPerSecond' | 'notImplemented'>): number {
  // A route that answers only errors still has a maximum rate of answers; use that.
  const maximum = row.notImplemented || !(row.throughput > 0) ? row.answeredPerSecond : row.throughput;
  return Math.max(1, Math.round(maximum / 2));
}

const fixed = (value: number | null, digits: number): string => (value === null || !Number.isFinite(value) ? '–' : value.toFixed(digits));

const targetText = (target: Target): string => {
  if (target.kind === 'ratio') return `≥ ${target.min} × ${target.baseline}`;
  if (target.kind === 'absolute') return `≥ ${target.min} req/s`;
  return `≤ +${target.max} ms CPU (${target.processes.join(', ')}) vs ${target.baseline}`;
};

/** The ratio column: the ratio, or a `cpu-delta` row's CPU difference. */
const ratioText = (row: EndpointRow): string =>
  row.cpuDeltaMs !== null ? `${row.cpuDeltaMs >= 0 ? '+' : ''}${row.cpuDeltaMs.toFixed(3)} ms` : fixed(row.ratio, 2);

const statusText = (row: EndpointRow): string => {
  if (row.notImplemented) return 'not implemented (501)';
  return row.met ? 'met' : 'MISSED';
};

const countsText = (counts: Record<string, number>, errors: number): string => {
  const parts = Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}×${count}`);
  if (errors > 0) parts.push(`errors×${errors}`);
  return parts.length > 0 ? parts.join(' ') : '0';
};

/** Renders rows as an aligned plain-text table (the first row is the header). */
export function alignTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** The report printed at the end of a run. */
export function formatTable(endpoints: readonly EndpointRow[], baselines: readonly BaselineRow[]): string {
  const endpointTable = alignTable([
    [
      'endpoint',
      'req/s (2xx)',
      'rate',
      'p50 ms',
      'p99 ms',
      'CPU ms/req',
      'db rt/req',
      'db wr/req',
      'non-2xx',
      'baseline/s',
      'ratio',
      'target',
      'status',
    ],
    ...endpoints.map((row) => [
      row.label,
      fixed(row.throughput, 0),
      fixed(row.latencyRate, 0),
      fixed(row.p50Ms, 2),
      fixed(row.p99Ms, 2),
      fixed(row.cpuMsPerRequest, 2),
      fixed(row.dbRoundTrips, 2),
      fixed(row.dbWrites, 2),
      countsText(row.nonOk, row.errors),
      fixed(row.baselineThroughput, 0),
      ratioText(row),
      targetText(row.target),
      statusText(row),
    ]),
  ]);
  const baselineTable = alignTable([
    ['baseline', 'req/s', 'min', 'max', 'CPU ms/req'],
    ...baselines.map((row) => [
      `${row.id}: ${row.label}`,
      fixed(row.throughput, 0),
      fixed(row.throughputSpread.min, 0),
      fixed(row.throughputSpread.max, 0),
      fixed(row.cpuMsPerRequest, 2),
    ]),
  ]);
  return `${endpointTable}\n\n${baselineTable}`;
}

export interface Comparison {
  id: string;
  label: string;
  baseline: number;
  current: number;
  /** current / baseline − 1 (negative is a drop). */
  change: number;
  failed: boolean;
}

/**
 * Compares each endpoint's ratio with the committed baseline run. Only ratios are compared:
 * they are measured interleaved, so they survive a loaded machine; absolute rates do not.
 * A row is skipped when either side has no ratio (not measured, or an absolute target).
 */
export function compareWithBaseline(
  current: readonly Pick<EndpointRow, 'id' | 'label' | 'ratio'>[],
  baseline: readonly Pick<EndpointRow, 'id' | 'ratio'>[],
  maxDrop = 0.15,
): { comparisons: Comparison[]; failed: boolean } {
  const comparisons: Comparison[] = [];
  for (const row of current) {
    const before = baseline.find((candidate) => candidate.id === row.id)?.ratio;
    if (row.ratio === null || before === null || before === undefined || !(before > 0)) continue;
    const change = row.ratio / before - 1;
    comparisons.push({ id: row.id, label: row.label, baseline: before, current: row.ratio, change, failed: change < -maxDrop });
  }
  return { comparisons, failed: comparisons.some((comparison) => comparison.failed) };
}

export function formatComparisons(comparisons: readonly Comparison[], maxDrop = 0.15): string {
  return alignTable([
    ['ratio vs baseline.json', 'baseline', 'now', 'change', `verdict (drop > ${Math.round(maxDrop * 100)} % fails)`],
    ...comparisons.map((comparison) => [
      comparison.label,
      comparison.baseline.toFixed(2),
      comparison.current.toFixed(2),
      `${comparison.change >= 0 ? '+' : ''}${(comparison.change * 100).toFixed(1)} %`,
      comparison.failed ? 'DROP' : 'ok',
    ]),
  ]);
}

/** Rounds a row's numbers for the JSON file. */
export function roundedRow<T extends object>(row: T): T {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'number') return Number.isFinite(value) ? round(value, 3) : null;
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    return value;
  };
  return walk(row) as T;
}

/**
 * CPU milliseconds (or another amount) per answer by process, one row per measured target: where
 * the time goes. Columns are the processes at `minMs` per answer or more somewhere, busiest first.
 */
export function formatCpuBreakdown(
  rows: readonly { label: string; perProcess: Record<string, number> }[],
  minMs = 0.05,
  title = 'CPU ms per answer',
): string {
  const totals = new Map<string, number>();
  for (const row of rows) for (const [name, ms] of Object.entries(row.perProcess)) totals.set(name, Math.max(totals.get(name) ?? 0, ms));
  const columns = [...totals]
    .filter(([, ms]) => ms >= minMs)
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => name);
  return alignTable([
    [title, ...columns],
    ...rows.map((row) => [row.label, ...columns.map((name) => fixed(row.perProcess[name] ?? 0, 2))]),
  ]);
}

/** Median over runs of each process's CPU per answer. */
export function cpuPerAnswer(runs: readonly { cpuMsByProcess: Record<string, number>; answers: number }[]): Record<string, number> {
  return perAnswer(runs.map((run) => ({ byProcess: run.cpuMsByProcess, answers: run.answers })));
}

/** Median over runs of each process's amount per answer (CPU, database commands). */
export function perAnswer(runs: readonly { byProcess: Record<string, number>; answers: number }[]): Record<string, number> {
  const names = new Set(runs.flatMap((run) => Object.keys(run.byProcess)));
  return Object.fromEntries(
    [...names].map((name) => [name, median(runs.map((run) => (run.byProcess[name] ?? 0) / Math.max(1, run.answers)))]),
  );
}

/** p50 latency at the small and the large size of the scale run (issue 14), with the target. */
export interface ScaleRow {
  id: string;
  label: string;
  rate: number;
  p50Small: number;
  p99Small: number;
  p50Large: number;
  p99Large: number;
  /** p50Large / p50Small; met at `MAX_SCALE_RATIO` or below. */
  p50Ratio: number;
  met: boolean;
}

/** The scale target: p50 at the large size at most this multiple of p50 at the small size. */
export const MAX_SCALE_RATIO = 1.5;

export function scaleRow(
  spec: { id: string; label: string },
  rate: number,
  small: Pick<LatencySample, 'p50Ms' | 'p99Ms'>,
  large: Pick<LatencySample, 'p50Ms' | 'p99Ms'>,
): ScaleRow {
  const p50Ratio = large.p50Ms / small.p50Ms;
  return {
    id: spec.id,
    label: spec.label,
    rate,
    p50Small: small.p50Ms,
    p99Small: small.p99Ms,
    p50Large: large.p50Ms,
    p99Large: large.p99Ms,
    p50Ratio,
    met: Number.isFinite(p50Ratio) && p50Ratio <= MAX_SCALE_RATIO,
  };
}

export function formatScale(rows: readonly ScaleRow[], small: { sessions: number }, large: { sessions: number }): string {
  return alignTable([
    [
      'endpoint',
      'rate',
      `p50 ms @${small.sessions}`,
      'p99 ms',
      `p50 ms @${large.sessions}`,
      'p99 ms',
      'p50 ratio',
      `target ≤ ${MAX_SCALE_RATIO}`,
    ],
    ...rows.map((row) => [
      row.label,
      fixed(row.rate, 0),
      fixed(row.p50Small, 2),
      fixed(row.p99Small, 2),
      fixed(row.p50Large, 2),
      fixed(row.p99Large, 2),
      fixed(row.p50Ratio, 2),
      row.met ? 'met' : 'MISSED',
    ]),
  ]);
}
