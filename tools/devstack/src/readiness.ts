const POLL_INTERVAL_MS = 200;
const REQUEST_TIMEOUT_MS = 2_000;

/**
 * Polls `url` until it answers 200. Resolves false when `timeoutMs` passes or `cancelled()`
 * turns true (the stack is stopping), true once ready.
 */
export async function waitForHttpOk(url: string, timeoutMs: number, cancelled: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !cancelled()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await response.body?.cancel();
      if (response.status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  return false;
}
