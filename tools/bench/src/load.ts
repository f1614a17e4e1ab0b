import autocannon from 'autocannon';

import { cpuDeltaMs, readCpu } from './cpu.js';
import { percentile } from './stats.js';

/** One HTTP request shape that autocannon repeats. */
export interface HttpTarget {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Sent in turn, each over the target's headers and body (e.g. one sign-in per member of a pool). */
  variants?: readonly RequestVariant[];
}

/** What one request of a rotation changes: headers added to the target's, or another body. */
export interface RequestVariant {
  headers?: Record<string, string>;
  body?: string;
}

/** What one load run measured. Throughput counts 2xx answers only; the rest are reported apart. */
export interface LoadResult {
  seconds: number;
  /** 2xx answers per second. */
  okPerSecond: number;
  /** Every answer per second, whatever its status. */
  answeredPerSecond: number;
  ok: number;
  /** Answers that were not 2xx, by status (e.g. 429 when identity's hash queue is full). */
  nonOk: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** Latency of 2xx answers, milliseconds. */
  p50Ms: number;
  p99Ms: number;
  /** CPU of all measured processes, milliseconds, per PID and in total. */
  cpuMs: number;
  cpuMsByPid: Record<string, number>;
  /** cpuMs per 2xx answer (per answer when nothing succeeded). */
  cpuMsPerRequest: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Open loop at this many requests per second over all connections; closed loop without. */
  overallRate?: number;
  /** Processes whose CPU counts (every process of the stack and the baselines). */
  pids: readonly number[];
}

/** One autocannon instance of an open-loop run: its share of the rate, and when it starts. */
export interface StaggeredPart {
  delayMs: number;
  rate: number;
  connections: number;
}

/**
 * Splits an open-loop rate over up to `parts` autocannon instances started evenly over one
 * second. autocannon's rate limit refills every connection's quota once a second, on timers that
 * all start together, so one instance sends its whole second's requests in one burst and the
 * queue behind it shows as latency; ten staggered instances send ten bursts of a tenth.
 */
export function staggerPlan(rate: number, connections: number, parts = 10): StaggeredPart[] {
  const count = Math.max(1, Math.min(parts, Math.floor(rate)));
  return Array.from({ length: count }, (_, i) => ({
    delayMs: Math.round((i * 1000) / count),
    rate: Math.floor(rate / count) + (i < rate % count ? 1 : 0),
    connections: Math.max(1, Math.ceil(connections / count)),
  }));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends each variant of `target` once, a few at a time (every member of a rotation once), so
 * that per-member caches are as warm at one size of the scale run as at the other. Resolves
 * with the number of 2xx answers.
 */
export async function sendEach(target: HttpTarget, concurrency = 4): Promise<number> {
  const variants = target.variants?.length ? target.variants : [{}];
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < variants.length; index = next++) {
        const variant = variants[index]!;
        const response = await fetch(target.url, {
          method: target.method,
          headers: { ...target.headers, ...variant.headers },
          body: variant.body ?? target.body,
        });
        await response.arrayBuffer();
        if (response.ok) ok++;
      }
    }),
  );
  return ok;
}

/** An autocannon request hook that sends the variants in turn, over every connection. */
function rotate(variants: readonly RequestVariant[]) {
  let next = 0;
  return (request: autocannon.Request): autocannon.Request => {
    const variant = variants[next++ % variants.length]!;
    return { ...request, headers: { ...request.headers, ...variant.headers }, body: variant.body ?? request.body };
  };
}

function runAutocannon(target: HttpTarget, connections: number, seconds: number, rate: number | undefined, latencies: number[]) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        ...(target.variants?.length ? { requests: [{ setupRequest: rotate(target.variants) }] } : {}),
        connections,
        duration: seconds,
        overallRate: rate,
        timeout: 10,
      },
      (error: unknown, finished: autocannon.Result) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(finished),
    );
    // autocannon's own histogram keeps whole milliseconds; loopback latencies need fractions.
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/**
 * Runs autocannon against `target` once (closed loop, or open loop at `overallRate` split by
 * `staggerPlan`), reading every PID's CPU before and after.
 */
export async function runLoad(target: HttpTarget, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const before = await readCpu(options.pids);
  const parts = options.overallRate
    ? staggerPlan(options.overallRate, options.connections)
    : [{ delayMs: 0, rate: undefined, connections: options.connections }];
  const results = await Promise.all(
    parts.map(async (part) => {
      await sleep(part.delayMs);
      return runAutocannon(target, part.connections, options.seconds, part.rate, latencies);
    }),
  );
  const after = await readCpu(options.pids);
  const byPid = cpuDeltaMs(before, after);
  const cpuMs = [...byPid.values()].reduce((sum, ms) => sum + ms, 0);

  const ok = results.reduce((sum, result) => sum + result['2xx'], 0);
  const nonOk: Record<string, number> = {};
  for (const result of results) {
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
      if (!status.startsWith('2')) nonOk[status] = (nonOk[status] ?? 0) + (count ?? 0);
    }
  }
  const answered = ok + Object.values(nonOk).reduce((sum, count) => sum + count, 0);
  // Staggered parts run side by side, each for the whole duration.
  const seconds = Math.max(...results.map((result) => result.duration));
  return {
    seconds,
    okPerSecond: ok / seconds,
    answeredPerSecond: answered / seconds,
    ok,
    nonOk,
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMs,
    cpuMsByPid: Object.fromEntries([...byPid].map(([pid, ms]) => [String(pid), ms])),
    cpuMsPerRequest: cpuMs / Math.max(1, ok > 0 ? ok : answered),
  };
}
