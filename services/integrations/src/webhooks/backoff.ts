/** The first retry waits this long (docs/adr/0173). */
export const FIRST_RETRY_MS = 30_000;
/** No wait is longer than this: an endpoint that comes back is tried again within 6 h. */
export const MAX_RETRY_MS = 6 * 3600_000;
/** How long a delivery is retried, from its creation or its replay (the issue: three days). */
export const RETRY_WINDOW_MS = 72 * 3600_000;

/** The wait after the `failures`-th failed attempt of the window: 30 s, 1 min, 2 min, … 6 h. */
export function retryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}

/** When to try again after a failure, or null when that would fall after the window. */
export function nextAttemptAt(now: Date, failures: number, retryUntil: Date): Date | null {
  const next = new Date(now.getTime() + retryDelayMs(failures));
  return next.getTime() <= retryUntil.getTime() ? next : null;
}
