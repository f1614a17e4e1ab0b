import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import { REVOCATION_LIST_TYPE, SIGNING_ALGORITHMS, type EntitlementClaims } from './claims.js';
import { EntitlementTokenRefused } from './errors.js';

/**
 * A resource's revocation list as signed by Masthead (docs/adr/0248): the sessions and members
 * whose tokens issued at or before a second are stale. Keys are `sid` and `sub` values.
 */
export interface RevocationListClaims {
  iat: number;
  exp: number;
  sessions: Record<string, number>;
  members: Record<string, number>;
}

export interface RevocationListOptions {
  url: URL;
  resource: string;
  issuer: string | undefined;
  keys: JWTVerifyGetKey;
  fetch: typeof fetch;
  now: () => number;
  /** The least time between two fetches after a failure. */
  cooldownMs: number;
  timeoutMs: number;
}

const isStampMap = (value: unknown): value is Record<string, number> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((stamp) => Number.isInteger(stamp));

/**
 * The optional revocation list: fetched with the `resource` header, verified with the key set,
 * renewed after half its life. A renewal that fails keeps the list held until its `exp`; with no
 * valid list, verification fails `unavailable` (the publisher asked for revocations, so a token is
 * not accepted unchecked).
 */
export class RevocationList {
  private list: RevocationListClaims | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;

  constructor(private readonly options: RevocationListOptions) {}

  /** Throws `revoked` for a token the list names, `unavailable` when no valid list can be had. */
  async check(claims: EntitlementClaims): Promise<void> {
    const list = await this.current();
    const staleThrough = Math.max(
      list.sessions[claims.sid] ?? Number.NEGATIVE_INFINITY,
      list.members[claims.sub] ?? Number.NEGATIVE_INFINITY,
    );
    if (claims.iat <= staleThrough) throw new EntitlementTokenRefused('revoked');
  }

  private async current(): Promise<RevocationListClaims> {
    const { now, cooldownMs } = this.options;
    const seconds = now() / 1000;
    const renewAt = this.list ? (this.list.iat + this.list.exp) / 2 : Number.NEGATIVE_INFINITY;
    if (seconds >= renewAt && now() - this.lastAttempt >= cooldownMs) {
      this.pending ??= this.fetchList().finally(() => {
        this.pending = undefined;
      });
      await this.pending;
    }
    if (!this.list || this.list.exp <= now() / 1000) throw new EntitlementTokenRefused('unavailable');
    return this.list;
  }

  private async fetchList(): Promise<void> {
    const { url, resource, issuer, keys, fetch, now, timeoutMs } = this.options;
    this.lastAttempt = now();
    try {
      const response = await fetch(url, {
        headers: { resource, accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200) return;
      const body = (await response.json()) as { revocation_list?: unknown };
      if (typeof body.revocation_list !== 'string') return;
      const { payload } = await jwtVerify(body.revocation_list, keys, {
        algorithms: [...SIGNING_ALGORITHMS],
        typ: REVOCATION_LIST_TYPE,
        audience: resource,
        ...(issuer ? { issuer } : {}),
        currentDate: new Date(now()),
        requiredClaims: ['iat', 'exp'],
      });
      const { iat, exp, sessions, members } = payload as Record<string, unknown>;
      if (!Number.isInteger(iat) || !Number.isInteger(exp) || !isStampMap(sessions) || !isStampMap(members)) return;
      // An older list never replaces a newer one (answers may cross).
      if (this.list && (iat as number) < this.list.iat) return;
      this.list = { iat: iat as number, exp: exp as number, sessions, members };
    } catch {
      // Kept: the list held before serves until its exp.
    }
  }
}
