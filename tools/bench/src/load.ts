import autocannon from 'autocannon';

import { cpuDeltaMs, readCpu } from './cpu.js';
import { percentile } from './stats.js';

/** One HTTP request shape that autocannon repeats. */
export interface HttpTarget {
  url: string;
  method: 'GET' | 'POST';
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

/** Runs autocannon against `target` once, reading every PID's CPU before and after. */
export async function runLoad(target: HttpTarget, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const before = await readCpu(options.pids);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections: options.connections,
        duration: options.seconds,
        overallRate: options.overallRate,
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
  const after = await readCpu(options.pids);
  const byPid = cpuDeltaMs(before, after);
  const cpuMs = [...byPid.values()].reduce((sum, ms) => sum + ms, 0);

  const ok = result['2xx'];
  const nonOk: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2')) nonOk[status] = count ?? 0;
  }
  const answered = ok + Object.values(nonOk).reduce((sum, count) => sum + count, 0);
  const seconds = result.duration;
  return {
    seconds,
    okPerSecond: ok / seconds,
    answeredPerSecond: answered / seconds,
    ok,
    nonOk,
    errors: result.errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMs,
    cpuMsByPid: Object.fromEntries([...byPid].map(([pid, ms]) => [String(pid), ms])),
    cpuMsPerRequest: cpuMs / Math.max(1, ok > 0 ? ok : answered),
  };
}
