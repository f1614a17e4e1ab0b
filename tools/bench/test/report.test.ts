import { describe, expect, it } from 'vitest';

import {
  alignTable,
  compareWithBaseline,
  cpuPerAnswer,
  endpointRow,
  formatCpuBreakdown,
  formatScale,
  formatTable,
  isNotImplemented,
  latencyRate,
  roundedRow,
  scaleRow,
  type RoundSample,
} from '../src/report.js';
import type { EndpointSpec } from '../src/targets.js';

const sample = (okPerSecond: number, baselinePerSecond?: number, extra: Partial<RoundSample> = {}): RoundSample => ({
  okPerSecond,
  answeredPerSecond: okPerSecond,
  cpuMsPerRequest: 1,
  nonOk: {},
  errors: 0,
  baselinePerSecond,
  ...extra,
});

const plans: Pick<EndpointSpec, 'id' | 'label' | 'target'> = {
  id: 'plans',
  label: 'GET /plans',
  target: { kind: 'ratio', baseline: 'one-hop', min: 0.8 },
};
const refresh: Pick<EndpointSpec, 'id' | 'label' | 'target'> = {
  id: 'refresh',
  label: 'POST /authorization/refresh',
  target: { kind: 'absolute', min: 240 },
};

describe('endpoint rows', () => {
  it('takes the median of per-round ratios, each to the baseline of its own round', () => {
    // Rounds: 0.5, 0.9, 0.85 → median 0.85, although the medians of each side give 900/1000.
    const row = endpointRow(plans, [sample(500, 1000), sample(900, 1000), sample(1700, 2000)]);
    expect(row.ratio).toBeCloseTo(0.85);
    expect(row.ratioSpread).toEqual({ median: row.ratio, min: 0.5, max: 0.9 });
    expect(row.throughput).toBe(900);
    expect(row.baselineThroughput).toBe(1000);
    expect(row.met).toBe(true);
  });

  it('misses a ratio target below the minimum', () => {
    const row = endpointRow(plans, [sample(700, 1000)]);
    expect(row.ratio).toBeCloseTo(0.7);
    expect(row.met).toBe(false);
  });

  it('never counts non-2xx answers as throughput and sums them over rounds and the latency run', () => {
    const row = endpointRow(
      { id: 'signin', label: 'POST /authorization', target: { kind: 'ratio', baseline: 'hash', min: 0.85 } },
      [sample(40, 50, { answeredPerSecond: 60, nonOk: { '429': 200 } }), sample(44, 50, { nonOk: { '429': 5, '500': 1 }, errors: 2 })],
      { rate: 21, p50Ms: 100, p99Ms: 200, nonOk: { '429': 1 }, errors: 1 },
    );
    expect(row.throughput).toBe(42);
    expect(row.nonOk).toEqual({ '429': 206, '500': 1 });
    expect(row.errors).toBe(3);
    expect(row.ratio).toBeCloseTo(0.84);
    expect(row.met).toBe(false);
    expect([row.latencyRate, row.p50Ms, row.p99Ms]).toEqual([21, 100, 200]);
  });

  it('judges an absolute target by 2xx throughput, and a 501-only endpoint as not implemented, never met', () => {
    const ok = endpointRow(refresh, [sample(300), sample(250)]);
    expect(ok.ratio).toBeNull();
    expect(ok.met).toBe(true);

    const missing = endpointRow(refresh, [sample(0, undefined, { answeredPerSecond: 2000, nonOk: { '501': 20000 } })]);
    expect(missing.notImplemented).toBe(true);
    expect(missing.met).toBe(false);
    expect(isNotImplemented(0, { '501': 1 })).toBe(true);
    expect(isNotImplemented(5, { '501': 1 })).toBe(false);
    expect(isNotImplemented(0, { '500': 1 })).toBe(false);
  });

  it('has no ratio without a measured baseline', () => {
    const row = endpointRow(plans, [sample(500), sample(600, 0)]);
    expect(row.ratio).toBeNull();
    expect(row.met).toBe(false);
  });

  it('judges a CPU-delta target by the median of per-round differences, at most its maximum, and shows it as the ratio', () => {
    const token: Pick<EndpointSpec, 'id' | 'label' | 'target'> = {
      id: 'token',
      label: 'entitlement token in a refresh',
      target: { kind: 'cpu-delta', baseline: 'refresh-bare', processes: ['identity', 'gateway'], max: 0.2 },
    };
    const row = endpointRow(token, [
      sample(300, 310, { cpuDeltaMs: 0.05 }),
      sample(290, 300, { cpuDeltaMs: 0.3 }),
      sample(295, 305, { cpuDeltaMs: 0.12 }),
    ]);
    expect([row.cpuDeltaMs, row.ratio, row.baselineThroughput, row.met]).toEqual([0.12, null, 305, true]);
    expect(endpointRow(token, [sample(300, 310, { cpuDeltaMs: 0.25 })]).met).toBe(false);
    expect(endpointRow(token, [sample(300, 310)]).met).toBe(false);
    expect(formatTable([row], [])).toMatch(/\+0\.120 ms {2}≤ \+0\.2 ms CPU \(identity, gateway\) vs refresh-bare +met/);
  });

  it('runs latency at half the maximum, of all answers when nothing succeeds', () => {
    expect(latencyRate({ throughput: 901, answeredPerSecond: 950, notImplemented: false })).toBe(451);
    expect(latencyRate({ throughput: 0, answeredPerSecond: 3000, notImplemented: true })).toBe(1500);
    expect(latencyRate({ throughput: 1, answeredPerSecond: 1, notImplemented: false })).toBe(1);
  });
});

describe('baseline comparison', () => {
  const current = [
    { id: 'plans', label: 'GET /plans', ratio: 0.7 },
    { id: 'user', label: 'GET /user', ratio: 0.5 },
    { id: 'signin', label: 'POST /authorization', ratio: 0.9 },
    { id: 'refresh', label: 'POST /authorization/refresh', ratio: null },
  ];

  it('fails on a ratio that dropped by more than 15 %, not on one that dropped less', () => {
    const result = compareWithBaseline(current, [
      { id: 'plans', ratio: 0.8 }, // −12.5 %: ok
      { id: 'user', ratio: 0.6 }, // −16.7 %: drop
      { id: 'signin', ratio: 0.8 }, // +12.5 %
      { id: 'refresh', ratio: null },
    ]);
    expect(result.failed).toBe(true);
    expect(result.comparisons.map(({ id, failed }) => [id, failed])).toEqual([
      ['plans', false],
      ['user', true],
      ['signin', false],
    ]);
    expect(result.comparisons[0]!.change).toBeCloseTo(-0.125);
  });

  it('passes when nothing dropped and skips rows the baseline lacks', () => {
    const result = compareWithBaseline(current, [{ id: 'plans', ratio: 0.72 }]);
    expect(result).toEqual({ comparisons: [expect.objectContaining({ id: 'plans', failed: false })], failed: false });
    expect(compareWithBaseline(current, []).failed).toBe(false);
  });
});

describe('table', () => {
  it('aligns columns: first left, the others right', () => {
    expect(
      alignTable([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toBe('a    bb\n---  --\nccc   d');
  });

  it('prints every endpoint with its status, non-2xx counts and dashes for what was not measured', () => {
    const text = formatTable(
      [
        endpointRow(plans, [sample(900, 1000, { dbRoundTrips: 3.5, dbWrites: 1 })], {
          rate: 450,
          p50Ms: 1.234,
          p99Ms: 5.678,
          nonOk: {},
          errors: 0,
        }),
        endpointRow(refresh, [sample(0, undefined, { answeredPerSecond: 2000, nonOk: { '501': 6000 } })]),
      ],
      [
        {
          id: 'one-hop',
          label: 'one hop',
          throughput: 1000,
          throughputSpread: { median: 1000, min: 990, max: 1010 },
          cpuMsPerRequest: 0.4,
        },
      ],
    );
    const lines = text.split('\n');
    expect(lines[2]).toMatch(
      /^GET \/plans\s+900\s+450\s+1\.23\s+5\.68\s+1\.00\s+3\.50\s+1\.00\s+0\s+1000\s+0\.90\s+≥ 0\.8 × one-hop\s+met$/,
    );
    expect(lines[3]).toMatch(
      /^POST \/authorization\/refresh\s+0\s+–\s+–\s+–\s+1\.00\s+–\s+–\s+501×6000\s+–\s+–\s+≥ 240 req\/s\s+not implemented \(501\)$/,
    );
    expect(text).toContain('one-hop: one hop   1000  990  1010        0.40');
  });

  it('breaks CPU down by process, busiest first, leaving out idle ones', () => {
    const perProcess = cpuPerAnswer([
      { cpuMsByProcess: { gateway: 100, ferretdb: 300, nats: 1 }, answers: 100 },
      { cpuMsByProcess: { gateway: 120, ferretdb: 260, nats: 1 }, answers: 100 },
    ]);
    expect(perProcess).toEqual({ gateway: 1.1, ferretdb: 2.8, nats: 0.01 });
    expect(formatCpuBreakdown([{ label: 'plans', perProcess }])).toBe(
      'CPU ms per answer  ferretdb  gateway\n-----------------  --------  -------\nplans                  2.80     1.10',
    );
  });

  it('takes the median of database round trips per answer, null when nothing was counted', () => {
    const row = endpointRow(plans, [
      sample(1, 1, { dbRoundTrips: 5, dbWrites: 2 }),
      sample(1, 1, { dbRoundTrips: 3, dbWrites: 0 }),
      sample(1, 1, { dbRoundTrips: 4, dbWrites: 1 }),
    ]);
    expect([row.dbRoundTrips, row.dbWrites]).toEqual([4, 1]);
    expect(endpointRow(plans, [sample(1, 1)]).dbRoundTrips).toBeNull();
    expect(formatCpuBreakdown([{ label: 'user', perProcess: { identity: 2, catalog: 0.005 } }], 0.01, 'db round trips per answer')).toBe(
      'db round trips per answer  identity\n-------------------------  --------\nuser                           2.00',
    );
  });

  it('judges the scale run by the p50 ratio of the large to the small size', () => {
    const met = scaleRow({ id: 'user', label: 'GET /user' }, 200, { p50Ms: 2, p99Ms: 9 }, { p50Ms: 2.9, p99Ms: 30 });
    expect(met).toEqual({
      id: 'user',
      label: 'GET /user',
      rate: 200,
      p50Small: 2,
      p99Small: 9,
      p50Large: 2.9,
      p99Large: 30,
      p50Ratio: 1.45,
      met: true,
    });
    expect(scaleRow({ id: 'user', label: 'GET /user' }, 200, { p50Ms: 2, p99Ms: 9 }, { p50Ms: 3.2, p99Ms: 9 }).met).toBe(false);
    expect(formatScale([met], { sessions: 1000 }, { sessions: 1_000_000 }).split('\n')[2]).toMatch(
      /^GET \/user\s+200\s+2\.00\s+9\.00\s+2\.90\s+30\.00\s+1\.45\s+met$/,
    );
  });

  it('rounds numbers for the JSON file and writes NaN as null', () => {
    expect(roundedRow({ a: 1.23456, b: [NaN, 2], c: { d: 0.0004 }, e: 'x', f: null })).toEqual({
      a: 1.235,
      b: [null, 2],
      c: { d: 0 },
      e: 'x',
      f: null,
    });
  });
});
