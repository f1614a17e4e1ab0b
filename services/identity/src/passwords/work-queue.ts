/** A task that waited longer than the queue's `maxWaitMs` and was dropped unrun. */
export class QueueWaitExceeded extends Error {
  constructor() {
    super('waited too long for a free slot');
  }
}

/**
 * Runs at most `concurrency` tasks at once with at most `limit` waiting, none longer than
 * `maxWaitMs`. `submit` returns null when the queue is full, and a waiting task past its wait is
 * rejected with QueueWaitExceeded, so that callers refuse fast instead of piling up latency: the
 * count alone cannot promise that, since how long a task takes depends on the machine's load.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly limit: number,
    private readonly maxWaitMs = Number.POSITIVE_INFINITY,
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
      if (this.running < this.concurrency) return start();
      const timer = Number.isFinite(this.maxWaitMs)
        ? setTimeout(() => {
            this.waiting.splice(this.waiting.indexOf(startWhenFree), 1);
            reject(new QueueWaitExceeded());
          }, this.maxWaitMs)
        : undefined;
      const startWhenFree = () => {
        clearTimeout(timer);
        start();
      };
      this.waiting.push(startWhenFree);
    });
  }

  get pending(): number {
    return this.running + this.waiting.length;
  }
}
