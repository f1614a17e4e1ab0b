/**
 * Public plan reads (list pages and details) kept in memory per resource, because every GET
 * /plans otherwise costs three database queries (page, count, pricings), ~4 ms of CPU over the
 * catalog and FerretDB against ~0.5 ms for the whole hop (bench, ADR 0041).
 *
 * A resource's entries are dropped together when any of its plans or pricings changes
 * (`invalidate`, called by the writes in this process and by the `catalog_updated` event from
 * other replicas), and at the latest after `ttlMs`. A read that started before an invalidation
 * stores its answer in the dropped generation, so it is never served afterwards. Failed loads
 * (e.g. 404 plan_not_found) are not kept. Cached values are shared: callers must not mutate them.
 */
export class PlanReadCache {
  private readonly generations = new Map<number, { expiresAt: number; reads: Map<string, Promise<unknown>> }>();

  constructor(
    private readonly ttlMs: number,
    // Bounds memory: resources kept, and distinct reads (filters, pages) per resource.
    private readonly maxResources = 1_000,
    private readonly maxReadsPerResource = 200,
  ) {}

  /** The value of `key` in the resource's current generation, loading it once when absent. */
  read<T>(resourceId: number, key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    let generation = this.generations.get(resourceId);
    if (!generation || generation.expiresAt <= now) {
      this.generations.delete(resourceId);
      if (this.generations.size >= this.maxResources) {
        // Maps iterate in insertion order: drop the oldest resource.
        const oldest = this.generations.keys().next();
        if (!oldest.done) this.generations.delete(oldest.value);
      }
      generation = { expiresAt: now + this.ttlMs, reads: new Map() };
      this.generations.set(resourceId, generation);
    }
    const cached = generation.reads.get(key);
    if (cached) return cached as Promise<T>;
    if (generation.reads.size >= this.maxReadsPerResource) return load();
    const reads = generation.reads;
    const loading = load();
    reads.set(key, loading);
    loading.catch(() => {
      if (reads.get(key) === loading) reads.delete(key);
    });
    return loading;
  }

  /** Drops every read of the resource; the next read loads afresh. */
  invalidate(resourceId: number): void {
    this.generations.delete(resourceId);
  }
}
