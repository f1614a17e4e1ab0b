import { describe, expect, it } from 'vitest';

import { cpuDeltaMs, parseProcStat } from '../src/cpu.js';
import { median, percentile, round, spread } from '../src/stats.js';

describe('statistics', () => {
  it('takes the median of odd and even counts, unsorted input untouched', () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });

  it('interpolates percentiles between closest ranks', () => {
    const values = Array.from({ length: 101 }, (_, i) => i); // 0..100
    expect(percentile(values, 0)).toBe(0);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([1, 2], 75)).toBe(1.75);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('reports spread and rounds for reports', () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(spread([])).toEqual({ median: NaN, min: NaN, max: NaN });
    expect(round(1.23456, 2)).toBe(1.23);
    expect(round(2.5, 0)).toBe(3);
  });
});

describe('/proc/<pid>/stat', () => {
  // A real line of this machine's kernel, command name with a space and parentheses.
  const line =
    '4242 (node (gate way)) S 1 4242 4242 0 -1 4194304 51234 0 3 0 1234 567 0 0 20 0 11 0 987654 1234567890 45678 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0';

  it('reads utime, stime, cutime and cstime after the command name', () => {
    expect(parseProcStat(line)).toEqual({ utime: 1234, stime: 567, cutime: 0, cstime: 0 });
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseProcStat('no parentheses here')).toThrow(/no command name/);
    expect(() => parseProcStat('1 (x) S 1 2')).toThrow(/no utime/);
  });

  it('counts a process tree: the postmaster and its backends', async () => {
    const { readCpu } = await import('../src/cpu.js');
    const { spawn } = await import('node:child_process');
    // A parent that keeps a busy child: the tree's ticks grow though the parent itself idles.
    const parent = spawn(
      process.execPath,
      ['-e', "require('child_process').spawn(process.execPath, ['-e', 'for(;;){}'], {stdio: 'inherit'}); setInterval(() => {}, 1000)"],
      {
        stdio: 'ignore',
        // Its own process group, so that the busy child is stopped with it.
        detached: true,
      },
    );
    try {
      const pid = parent.pid!;
      const first = (await readCpu([pid])).get(pid)!;
      await expect.poll(async () => (await readCpu([pid])).get(pid)! - first, { timeout: 5000 }).toBeGreaterThanOrEqual(20);
      const own = parseProcStat(await (await import('node:fs/promises')).readFile(`/proc/${pid}/stat`, 'utf8'));
      expect(own.utime + own.stime).toBeLessThan(20);
    } finally {
      process.kill(-parent.pid!, 'SIGKILL');
    }
  });

  it('turns tick readings into milliseconds per PID present in both', () => {
    const before = new Map([
      [1, 100],
      [2, 50],
    ]);
    const after = new Map([
      [1, 130],
      [3, 10],
    ]);
    expect(cpuDeltaMs(before, after)).toEqual(new Map([[1, 300]]));
  });
});

describe('open-loop stagger', () => {
  it('splits a rate over ten instances a tenth of a second apart, summing to the rate', async () => {
    const { staggerPlan } = await import('../src/load.js');
    const plan = staggerPlan(371, 32);
    expect(plan.map((part) => part.delayMs)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(plan.map((part) => part.rate)).toEqual([38, 37, 37, 37, 37, 37, 37, 37, 37, 37]);
    expect(plan.reduce((sum, part) => sum + part.rate, 0)).toBe(371);
    expect(new Set(plan.map((part) => part.connections))).toEqual(new Set([4]));
  });

  it('uses fewer instances for a low rate, never none', async () => {
    const { staggerPlan } = await import('../src/load.js');
    expect(staggerPlan(3, 16)).toEqual([
      { delayMs: 0, rate: 1, connections: 6 },
      { delayMs: 333, rate: 1, connections: 6 },
      { delayMs: 667, rate: 1, connections: 6 },
    ]);
    expect(staggerPlan(1, 1)).toEqual([{ delayMs: 0, rate: 1, connections: 1 }]);
  });
});
