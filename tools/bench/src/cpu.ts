import { readdir, readFile } from 'node:fs/promises';

/** CPU time a process has used so far, in clock ticks, split as the kernel reports it. */
export interface CpuTicks {
  utime: number;
  stime: number;
  /** Of its children that ended and were waited for (PostgreSQL's backends, when they exit). */
  cutime: number;
  cstime: number;
}

/**
 * Reads utime, stime, cutime and cstime (fields 14 to 17) from the text of /proc/<pid>/stat. The
 * command name (field 2) is in parentheses and may hold spaces or parentheses, so fields are
 * counted from the last ')'. Throws on text that does not have that shape.
 */
export function parseProcStat(text: string): CpuTicks {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc/<pid>/stat line: no command name');
  // After ')': field 3 (state) is the first; utime is field 14, stime field 15.
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const [utime, stime, cutime, cstime] = [14, 15, 16, 17].map((field) => Number(fields[field - 3]));
  if (![utime, stime, cutime, cstime].every(Number.isFinite)) throw new Error('not a /proc/<pid>/stat line: no utime/stime');
  return { utime: utime!, stime: stime!, cutime: cutime!, cstime: cstime! };
}

/**
 * Clock ticks per second of /proc times (USER_HZ). Linux fixes it at 100 on every architecture
 * Node runs on; `getconf CLK_TCK` says so here.
 */
export const CLOCK_TICKS_PER_SECOND = 100;

/** The live children of a process, from every one of its threads. */
async function childrenOf(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(threads.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '')));
  return lists.flatMap((list) => list.split(/\s+/).filter(Boolean).map(Number));
}

/**
 * Ticks of a process tree: its own, its waited-for children's (cutime, cstime) and its live
 * descendants'. PostgreSQL runs each connection in a child of the postmaster; a child that ends
 * moves its time into the parent's cutime, so no tick is counted twice or lost.
 */
async function treeTicks(pid: number): Promise<number> {
  const own = parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  const children = await Promise.all((await childrenOf(pid)).map((child) => treeTicks(child).catch(() => 0)));
  return own.utime + own.stime + own.cutime + own.cstime + children.reduce((sum, ticks) => sum + ticks, 0);
}

/** CPU ticks of each PID's process tree; a process that is gone counts as absent. */
export async function readCpu(pids: readonly number[]): Promise<Map<number, number>> {
  const entries = await Promise.all(
    pids.map(async (pid) => {
      try {
        return [pid, await treeTicks(pid)] as const;
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
