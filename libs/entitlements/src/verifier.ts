import { jwtVerify } from 'jose';
import { ENTITLEMENT_TOKEN_TYPE, SIGNING_ALGORITHMS, entitlementClaimsOf, type EntitlementClaims } from './claims.js';
import { EntitlementTokenRefused, refusalOf } from './errors.js';
import { RemoteKeySet } from './key-set.js';
import { RevocationList } from './revocations.js';

export interface VerifyOptions {
  /** The resource's public key: a token must name it in `aud`. */
  resource: string;
  /** `https://<api host>/.well-known/jwks.json` (or its path under `/api/v1`). */
  jwksUrl: string | URL;
  /** The `iss` Masthead is configured with (ENTITLEMENT_ISSUER); unchecked when absent. */
  issuer?: string;
  /**
   * `https://<api host>/api/v1/entitlement-revocations`: also refuse tokens of sessions and
   * members revoked since they were issued (docs/adr/0248). Without it the token's lifetime (at
   * most 15 minutes) bounds a revocation.
   */
  revocationsUrl?: string | URL;
  /** Clock skew allowed on `exp` and `nbf`; default 5 seconds. */
  clockToleranceSeconds?: number;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; defaults to `Date.now` (tests move it). */
  now?: () => number;
}

/** A verifier with its own key set (and revocation list), kept across calls. */
export interface Verifier {
  /** The token's claims; throws EntitlementTokenRefused (its `reason` says why). */
  verify(token: string): Promise<EntitlementClaims>;
}

/** How long a key set is kept when its answer says nothing (Masthead's says: Cache-Control). */
const DEFAULT_KEY_SET_MAX_AGE_MS = 5 * 60_000;
/** The least time between fetches an unknown `kid` or a failure may cause (jose's default too). */
const COOLDOWN_MS = 30_000;
/** A key set past its age still serves this long while Masthead cannot be reached. */
const STALE_IF_ERROR_MS = 24 * 3600_000;
const REVOCATIONS_COOLDOWN_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
/** Real tokens are well under 2 KB; a longer string is refused before any parsing. */
const MAX_TOKEN_LENGTH = 8192;

/** A verifier for one resource and key set; keep it for the life of the process (or isolate). */
export function createVerifier(options: VerifyOptions): Verifier {
  const fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  const keys = new RemoteKeySet({
    url: new URL(options.jwksUrl),
    fetch: fetcher,
    now,
    defaultMaxAgeMs: DEFAULT_KEY_SET_MAX_AGE_MS,
    cooldownMs: COOLDOWN_MS,
    staleIfErrorMs: STALE_IF_ERROR_MS,
    timeoutMs: FETCH_TIMEOUT_MS,
  });
  const revocations = options.revocationsUrl
    ? new RevocationList({
        url: new URL(options.revocationsUrl),
        resource: options.resource,
        issuer: options.issuer,
        keys: keys.getKey,
        fetch: fetcher,
        now,
        cooldownMs: REVOCATIONS_COOLDOWN_MS,
        timeoutMs: FETCH_TIMEOUT_MS,
      })
    : undefined;
  const clockTolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;

  return {
    async verify(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH)
        throw new EntitlementTokenRefused('malformed');
      let claims: EntitlementClaims | null;
      try {
        const { payload } = await jwtVerify(token, keys.getKey, {
          algorithms: [...SIGNING_ALGORITHMS],
          typ: ENTITLEMENT_TOKEN_TYPE,
          audience: options.resource,
          ...(options.issuer ? { issuer: options.issuer } : {}),
          clockTolerance,
          currentDate: new Date(now()),
          requiredClaims: ['iss', 'sub', 'sid', 'iat', 'nbf', 'exp'],
        });
        claims = entitlementClaimsOf(payload);
      } catch (error) {
        throw refusalOf(error);
      }
      if (!claims) throw new EntitlementTokenRefused('malformed');
      await revocations?.check(claims);
      return claims;
    },
  };
}

/** Verifiers by their options, so that `verify` keeps one key set per URL and resource across calls. */
const shared = new Map<string, Verifier>();

/**
 * Verifies an entitlement token: signature against the published key set (fetched once, kept as
 * its Cache-Control says, fetched again for a `kid` it lacks), `typ`, algorithm, `aud` = the
 * resource, `iss` when given, `exp` and `nbf`; then the revocation list when `revocationsUrl`
 * is given. Resolves with the claims; throws EntitlementTokenRefused. With a `fetch` or `now`
 * of its own a call keeps nothing: keep a `createVerifier` instead.
 */
export function verify(token: string, options: VerifyOptions): Promise<EntitlementClaims> {
  if (options.fetch || options.now) return createVerifier(options).verify(token);
  const { jwksUrl, resource, issuer, revocationsUrl, clockToleranceSeconds } = options;
  const key = JSON.stringify([String(jwksUrl), resource, issuer, revocationsUrl && String(revocationsUrl), clockToleranceSeconds]);
  let verifier = shared.get(key);
  if (!verifier) {
    verifier = createVerifier(options);
    shared.set(key, verifier);
  }
  return verifier.verify(token);
}
