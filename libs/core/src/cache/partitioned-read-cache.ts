/**
 * Reads kept in memory per partition (a resource's plans, a user's memberships), for data whose
 * owner sees every write: the owner drops a partition when anything in it changes
 * (`invalidate`, called by the writes in this process and by events from other replicas), and
 * entries live at most `ttlMs`. A read that started before an invalidation stores its answer in
 * the dropped generation, so it is never served afterwards. Failed loads (e.g. 404) are not kept.
 * Cached values are shared: callers must not mutate them.
 */
export class PartitionedReadCache<Partition = number> {
  private readonly generations = new Map<Partition, { expiresAt: number; reads: Map<string, Promise<unknown>> }>();

  constructor(
    private readonly ttlMs: number,
    // Bounds memory: partitions kept, and distinct reads (filters, pages) per partition.
    private readonly maxPartitions = 1_000,
    private readonly maxReadsPerPartition = 200,
  ) {}

  /** The value of `key` in the partition's current generation, loading it once when absent. */
  read<T>(partition: Partition, key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    let generation = this.generations.get(partition);
    if (!generation || generation.expiresAt <= now) {
      this.generations.delete(partition);
      if (this.generations.size >= this.maxPartitions) {
        // Maps iterate in insertion order: drop the oldest partition.
        const oldest = this.generations.keys().next();
        if (!oldest.done) this.generations.delete(oldest.value);
      }
      generation = { expiresAt: now + this.ttlMs, reads: new Map() };
      this.generations.set(partition, generation);
    }
    const cached = generation.reads.get(key);
    if (cached) return cached as Promise<T>;
    if (generation.reads.size >= this.maxReadsPerPartition) return load();
    const reads = generation.reads;
    const loading = load();
    reads.set(key, loading);
    loading.catch(() => {
      if (reads.get(key) === loading) reads.delete(key);
    });
    return loading;
  }

  /** Drops every read of the partition; the next read loads afresh. */
  invalidate(partition: Partition): void {
    this.generations.delete(partition);
  }

  /** Drops every partition (a change that touches all of them). */
  clear(): void {
    this.generations.clear();
  }
}
