import { isAlive, spawnManaged, type ManagedProcess } from '@masthead/local-infra';
import { afterEach, describe, expect, it } from 'vitest';

import { Supervisor, type SupervisorEvents } from '../src/supervisor.js';

/** A child that runs until it is signalled. */
const sleeper = (name: string): Promise<ManagedProcess> => spawnManaged(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { name });

async function eventually<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What the supervisor reported, in order. */
function recorder(): SupervisorEvents & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    onUnexpectedExit: (child, status) => lines.push(`exit ${child.name} ${status.signal ?? status.code}`),
    onRestartScheduled: (name, attempt, delayMs) => lines.push(`schedule ${name} ${attempt} ${delayMs}`),
    onRestarted: (child, attempt) => lines.push(`restarted ${child.name} ${attempt}`),
    onRestartFailed: (name) => lines.push(`failed ${name}`),
  };
}

describe('supervisor', () => {
  let supervisor: Supervisor | undefined;
  afterEach(async () => {
    await supervisor?.stop();
  });

  it('restarts a kept process that dies, with growing back-off, and stops only when told', async () => {
    const events = recorder();
    supervisor = new Supervisor(events, { restart: { initialDelayMs: 50, maxDelayMs: 1000, stableAfterMs: 60_000 } });
    const first = await supervisor.keep('service', 'svc', () => sleeper('svc'));

    process.kill(first.pid, 'SIGKILL');
    const second = await eventually(() => (supervisor!.processOf('svc')?.pid !== first.pid ? supervisor!.processOf('svc') : undefined));
    // A clean SIGTERM of one child is an unexpected exit too: it comes back.
    process.kill(second.pid, 'SIGTERM');
    const third = await eventually(() => {
      const current = supervisor!.processOf('svc');
      return current && current.pid !== second.pid ? current : undefined;
    });

    expect(events.lines).toEqual([
      'exit svc SIGKILL',
      'schedule svc 1 50',
      'restarted svc 1',
      'exit svc SIGTERM',
      'schedule svc 2 100',
      'restarted svc 2',
    ]);
    await supervisor.stop();
    expect(isAlive(third.pid)).toBe(false);
    expect(supervisor.processOf('svc')).toBe(third);
  });

  it('keeps a held process down until it is released', async () => {
    const events = recorder();
    supervisor = new Supervisor(events, { restart: { initialDelayMs: 10, maxDelayMs: 10, stableAfterMs: 60_000 } });
    const first = await supervisor.keep('infra', 'bus', () => sleeper('bus'));
    supervisor.hold('bus');
    process.kill(first.pid, 'SIGKILL');
    await eventually(() => (supervisor!.processOf('bus') === undefined ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(supervisor.processOf('bus')).toBeUndefined();

    supervisor.release('bus');
    const again = await eventually(() => supervisor!.processOf('bus'));
    expect(again.pid).not.toBe(first.pid);
    expect(events.lines).toEqual(['exit bus SIGKILL', 'schedule bus 1 0', 'restarted bus 1']);
  });

  it('retries a restart that fails to start, and reports the exit without restarting when it has no policy', async () => {
    const events = recorder();
    supervisor = new Supervisor(events, { restart: { initialDelayMs: 10, maxDelayMs: 40, stableAfterMs: 60_000 } });
    let starts = 0;
    const first = await supervisor.keep('service', 'flaky', () => {
      starts++;
      return starts === 2 ? Promise.reject(new Error('port taken')) : sleeper('flaky');
    });
    process.kill(first.pid, 'SIGKILL');
    await eventually(() => (starts === 3 && supervisor!.processOf('flaky') ? true : undefined));
    expect(events.lines).toEqual(['exit flaky SIGKILL', 'schedule flaky 1 10', 'failed flaky', 'schedule flaky 2 20', 'restarted flaky 2']);

    const reported = recorder();
    const plain = new Supervisor(reported);
    const once = await plain.keep('service', 'once', () => sleeper('once'));
    process.kill(once.pid, 'SIGKILL');
    await eventually(() => (reported.lines.length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reported.lines).toEqual(['exit once SIGKILL']);
    await plain.stop();
  });
});
