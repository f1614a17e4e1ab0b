import { describe, expect, it, vi } from 'vitest';

import { TtlCache } from '../src/cache/index.js';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

describe('TtlCache', () => {
  it('shares one load between concurrent misses and serves the stored value afterwards', async () => {
    const cache = new TtlCache<string, { state: string }>(10_000);
    const load = vi.fn(async () => ({ state: 'active' }));
    const [a, b] = await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)]);
    expect(b).toBe(a);
    expect(await cache.getOrLoad('k', load)).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('does not store an answer loaded across an invalidation', async () => {
    const cache = new TtlCache<string, { state: string }>(10_000);
    const stale = deferred<{ state: string }>();
    const first = cache.getOrLoad('k', () => stale.promise);
    // The change lands while the read is in flight; its answer may predate the change.
    cache.deleteWhere(() => true);
    const fresh = cache.getOrLoad('k', async () => ({ state: 'revoked' }));
    stale.resolve({ state: 'active' });
    expect(await first).toEqual({ state: 'active' });
    expect(await fresh).toEqual({ state: 'revoked' });
    expect(await cache.getOrLoad('k', async () => ({ state: 'unexpected load' }))).toEqual({ state: 'revoked' });
  });

  it('keeps no failed load', async () => {
    const cache = new TtlCache<string, string>(10_000);
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.getOrLoad('k', async () => 'up')).toBe('up');
  });
});
