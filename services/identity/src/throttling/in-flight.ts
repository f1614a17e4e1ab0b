/**
 * Keys (normalized emails) with work in progress in this process, at most `perKey` at once; a
 * claim beyond that is refused at once. Parallel attempts on one account all pass the stored
 * throttle (each reads before any writes a failure), so without this a burst of 100 guesses costs
 * 100 password hashes and queues everyone else's sign-in behind them (issue 7, item 4). Per
 * process: with N identity replicas an account gets at most N × perKey at once, still bounded.
 */
export class InFlightClaims {
  private readonly held = new Map<string, number>();

  constructor(private readonly perKey: number) {}

  /** Runs `task` under a claim of `key`; throws `refusal()` without running it when none is free. */
  async run<T>(key: string, refusal: () => Error, task: () => Promise<T>): Promise<T> {
    const holders = this.held.get(key) ?? 0;
    if (holders >= this.perKey) throw refusal();
    this.held.set(key, holders + 1);
    try {
      return await task();
    } finally {
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    }
  }
}
