import { readFile } from 'node:fs/promises';

/** CPU time a process has used so far, in clock ticks, split as the kernel reports it. */
export interface CpuTicks {
  utime: number;
  stime: number;
}

/**
 * Reads utime and stime (fields 14 and 15) from the text of /proc/<pid>/stat. The command name
 * (field 2) is in parentheses and may hold spaces or parentheses, so fields are counted from the
 * last ')'. Throws on text that does not have that shape.
 */
export function parseProcStat(text: string): CpuTicks {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc/<pid>/stat line: no command name');
  // After ')': field 3 (state) is the first; utime is field 14, stime field 15.
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('not a /proc/<pid>/stat line: no utime/stime');
  return { utime, stime };
}

/**
 * Clock ticks per second of /proc times (USER_HZ). Linux fixes it at 100 on every architecture
 * Node runs on; `getconf CLK_TCK` says so here.
 */
export const CLOCK_TICKS_PER_SECOND = 100;

/** utime+stime in ticks of each PID; a process that is gone counts as absent. */
export async function readCpu(pids: readonly number[]): Promise<Map<number, number>> {
  const entries = await Promise.all(
    pids.map(async (pid) => {
      try {
        const ticks = parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
        return [pid, ticks.utime + ticks.stime] as const;
      } catch {
        return undefined;
      }
    }),
  );
  return new Map(entries.filter((entry) => entry !== undefined));
}

/** CPU milliseconds used between two readings, per PID present in both. */
export function cpuDeltaMs(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): Map<number, number> {
  const delta = new Map<number, number>();
  for (const [pid, end] of after) {
    const start = before.get(pid);
    if (start !== undefined) delta.set(pid, ((end - start) * 1000) / CLOCK_TICKS_PER_SECOND);
  }
  return delta;
}
