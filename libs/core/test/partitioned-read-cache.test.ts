import { afterEach, describe, expect, it, vi } from 'vitest';

import { PartitionedReadCache } from '../src/cache/index.js';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

describe('PartitionedReadCache', () => {
  afterEach(() => vi.useRealTimers());

  it('loads a key once per resource, concurrent readers included', async () => {
    const cache = new PartitionedReadCache(1000);
    const load = vi.fn(async () => ({ title: 'Gold' }));
    const [a, b] = await Promise.all([cache.read(1, 'list', load), cache.read(1, 'list', load)]);
    expect(await cache.read(1, 'list', load)).toBe(a);
    expect(b).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
    // Another resource, or another key, is another read.
    await cache.read(2, 'list', load);
    await cache.read(1, 'plan:1', load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('drops every read of a resource on invalidate, and only of that resource', async () => {
    const cache = new PartitionedReadCache(1000);
    let version = 0;
    const load = vi.fn(async () => ++version);
    expect(await cache.read(1, 'list', load)).toBe(1);
    expect(await cache.read(2, 'list', load)).toBe(2);
    cache.invalidate(1);
    expect(await cache.read(1, 'list', load)).toBe(3);
    expect(await cache.read(2, 'list', load)).toBe(2);
  });

  it('drops every partition on clear', async () => {
    const cache = new PartitionedReadCache(1000);
    let version = 0;
    const load = vi.fn(async () => ++version);
    await cache.read(1, 'list', load);
    await cache.read(2, 'list', load);
    cache.clear();
    expect(await cache.read(1, 'list', load)).toBe(3);
    expect(await cache.read(2, 'list', load)).toBe(4);
  });

  it('never serves a read that started before an invalidation', async () => {
    const cache = new PartitionedReadCache(1000);
    const slow = deferred<string>();
    const stale = cache.read(1, 'list', () => slow.promise);
    cache.invalidate(1); // a write lands while the read is in flight
    const fresh = cache.read(1, 'list', async () => 'after the write');
    slow.resolve('before the write');
    expect(await stale).toBe('before the write');
    expect(await fresh).toBe('after the write');
    expect(await cache.read(1, 'list', async () => 'reloaded')).toBe('after the write');
  });

  it('keeps no failed load', async () => {
    const cache = new PartitionedReadCache(1000);
    await expect(cache.read(1, 'plan:9', async () => Promise.reject(new Error('plan_not_found')))).rejects.toThrow('plan_not_found');
    expect(await cache.read(1, 'plan:9', async () => 'created since')).toBe('created since');
  });

  it('expires a resource after the TTL', async () => {
    vi.useFakeTimers();
    const cache = new PartitionedReadCache(1000);
    let version = 0;
    const load = async () => ++version;
    expect(await cache.read(1, 'list', load)).toBe(1);
    vi.advanceTimersByTime(999);
    expect(await cache.read(1, 'list', load)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await cache.read(1, 'list', load)).toBe(2);
  });

  it('bounds memory: oldest resource out, and reads beyond the per-resource limit are not kept', async () => {
    const cache = new PartitionedReadCache(1000, 2, 1);
    let version = 0;
    const load = async () => ++version;
    expect(await cache.read(1, 'a', load)).toBe(1);
    expect(await cache.read(1, 'b', load)).toBe(2); // over the per-resource limit: loaded, not kept
    expect(await cache.read(1, 'b', load)).toBe(3);
    await cache.read(2, 'a', load);
    await cache.read(3, 'a', load); // resource 1 is the oldest: dropped
    expect(await cache.read(1, 'a', load)).toBe(6);
  });
});
