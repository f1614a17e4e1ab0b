import type { ServiceRuntime } from '@masthead/core/service';
import { AddressLimiter } from './address-limiter.js';
import { SignInThrottle } from './sign-in-throttle.js';

/** The guessing limits: per-account sign-in throttling and per-address windows (swept every ten minutes). */
export function createThrottlingModule({ runtime }: { runtime: ServiceRuntime }) {
  const limiter = new AddressLimiter(runtime.db);
  const sweep = setInterval(
    () => limiter.sweep().catch((error: unknown) => runtime.logger.warn({ err: error }, 'window sweep failed')),
    10 * 60_000,
  );
  sweep.unref();
  return { throttle: new SignInThrottle(runtime.db), limiter, stop: () => clearInterval(sweep) };
}
