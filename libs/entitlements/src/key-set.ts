import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { EntitlementTokenRefused } from './errors.js';

export interface KeySetOptions {
  url: URL;
  fetch: typeof fetch;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** How long a set is kept when its answer names no `max-age`. */
  defaultMaxAgeMs: number;
  /** The least time between two fetches that an unknown `kid` or a failure may cause. */
  cooldownMs: number;
  /** How long a set past its `max-age` keeps serving while the URL cannot be fetched. */
  staleIfErrorMs: number;
  timeoutMs: number;
}

/** `max-age` of a Cache-Control header, in milliseconds. */
const maxAgeOf = (cacheControl: string | null): number | undefined => {
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  return match ? Number(match[1]) * 1000 : undefined;
};

/**
 * The published key set, kept as the server's Cache-Control allows. A token naming a `kid` the
 * set lacks makes it fetch again (a key rotated in since), at most once per cooldown, so a flood
 * of made-up `kid`s costs one fetch. A set past its age keeps serving for `staleIfErrorMs` while
 * the server cannot be reached: keys are published long before they sign (docs/adr/0247), so an
 * outage of Masthead does not close the paywall. A retired key is gone from the next fetch.
 */
export class RemoteKeySet {
  private local: JWTVerifyGetKey | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private freshUntil = Number.NEGATIVE_INFINITY;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;

  constructor(private readonly options: KeySetOptions) {}

  /** jose's key lookup (`jwtVerify(token, keySet.getKey)`). */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.options.now();
    if (now >= this.freshUntil && now - this.lastAttempt >= this.options.cooldownMs) await this.refresh();
    const local = this.usable();
    try {
      return await local(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || this.options.now() - this.lastAttempt < this.options.cooldownMs) throw error;
      await this.refresh();
      return this.usable()(header, token);
    }
  };

  /** The set to verify with: fresh, or stale within `staleIfErrorMs` of its last fetch. */
  private usable(): JWTVerifyGetKey {
    const stale = this.options.now() - this.fetchedAt > this.options.staleIfErrorMs;
    if (!this.local || (stale && this.options.now() >= this.freshUntil)) throw new EntitlementTokenRefused('unavailable');
    return this.local;
  }

  /** One fetch at a time; a failure leaves the set held before. */
  private refresh(): Promise<void> {
    this.pending ??= this.fetchSet().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchSet(): Promise<void> {
    const { url, fetch, now, timeoutMs, defaultMaxAgeMs } = this.options;
    this.lastAttempt = now();
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200) throw new Error(`key set answered ${response.status}`);
      const set = (await response.json()) as JSONWebKeySet;
      const local = createLocalJWKSet(set);
      const fetchedAt = now();
      this.local = local;
      this.fetchedAt = fetchedAt;
      this.freshUntil = fetchedAt + (maxAgeOf(response.headers.get('cache-control')) ?? defaultMaxAgeMs);
    } catch {
      // Kept: the set held before (if any) serves within staleIfErrorMs; `usable` decides.
    }
  }
}
