/**
 * A small in-process cache with expiry, a size bound and in-flight de-duplication: concurrent
 * misses for one key share a single load, so a cold key costs one call, not one per request.
 * An invalidation also disowns the loads in flight: their answers may predate it, so they reach
 * their callers but are not stored, and the next miss loads afresh.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, Promise<V>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }

  /** Returns the cached value or loads it once; a failed load is not cached. */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const started = this.generation;
    const settled = (): void => {
      if (this.loading.get(key) === promise) this.loading.delete(key);
    };
    const promise: Promise<V> = load().then(
      (value) => {
        settled();
        if (started === this.generation) this.set(key, value);
        return value;
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
    this.loading.set(key, promise);
    return promise;
  }

  delete(key: K): void {
    this.entries.delete(key);
    this.disownLoads();
  }

  /** Drops entries whose value matches, e.g. every key that points at one updated resource. */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
    this.disownLoads();
  }

  clear(): void {
    this.entries.clear();
    this.disownLoads();
  }

  private disownLoads(): void {
    this.generation++;
    this.loading.clear();
  }
}
