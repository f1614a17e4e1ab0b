import { describe, expect, it } from 'vitest';
import { QueueWaitExceeded, WorkQueue } from '../src/passwords/work-queue.js';

describe('WorkQueue', () => {
  it('refuses a waiting task past its longest wait, runs the rest in order and frees its place', async () => {
    const queue = new WorkQueue(1, 2, 50);
    let release!: () => void;
    const blocker = queue.submit(() => new Promise<string>((resolve) => (release = () => resolve('first'))));
    const waiting = queue.submit(async () => 'second');
    await expect(waiting).rejects.toBeInstanceOf(QueueWaitExceeded);
    expect(queue.pending).toBe(1);
    // The refused one left the queue: a new task waits in its place and runs once the slot frees.
    const next = queue.submit(async () => 'third');
    release();
    await expect(blocker).resolves.toBe('first');
    await expect(next).resolves.toBe('third');
    expect(queue.pending).toBe(0);
  });

  it('returns null at once when every slot and every waiting place is taken', () => {
    const queue = new WorkQueue(1, 0);
    expect(queue.submit(() => new Promise(() => undefined))).not.toBeNull();
    expect(queue.submit(async () => 'refused')).toBeNull();
  });
});
