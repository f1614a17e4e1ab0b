/**
 * Runs at most `concurrency` tasks at once with at most `limit` waiting. `submit` returns null
 * when the queue is full, so that callers can refuse fast instead of piling up latency.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly limit: number,
  ) {}

  submit<T>(task: () => Promise<T>): Promise<T> | null {
    if (this.running >= this.concurrency && this.waiting.length >= this.limit) return null;
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.waiting.shift()?.();
          });
      };
      if (this.running < this.concurrency) start();
      else this.waiting.push(start);
    });
  }

  get pending(): number {
    return this.running + this.waiting.length;
  }
}
