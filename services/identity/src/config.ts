import { ConfigError, loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { z } from 'zod';
import { entitlementsEnv, entitlementsProductionProblems } from './entitlements/entitlements.config.js';
import { socialProvidersEnv } from './social/provider-config.js';
import { recoveryEnv } from './recovery/recovery.config.js';

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const identityEnv = {
  ...serviceEnv,
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
  CATALOG_ADDR: serviceAddresses.CATALOG_ADDR,
  COMMUNITY_ADDR: serviceAddresses.COMMUNITY_ADDR,
  /** Session token lifetime; the spec leaves it open (document 1, Authentication). */
  SESSION_TTL_SECONDS: seconds(24 * 3600),
  REFRESH_TTL_SECONDS: seconds(30 * 24 * 3600),
  AUTH_CODE_TTL_SECONDS: seconds(120),
  /**
   * After a refresh record's first use, a second use within this many seconds gets the same
   * credentials instead of compromising the session family (two tabs, a retry after a lost
   * answer); 0 turns it off. Default and meaning from Supabase Auth's "refresh token reuse
   * interval" (10 s); at most 5 minutes, since a longer window only helps a thief (ADR 0086).
   */
  REFRESH_REUSE_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  /** argon2id parameters: OWASP's recommendation (19 MiB, t=2, p=1). */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(8192).default(19456),
  ARGON2_ITERATIONS: z.coerce.number().int().min(1).default(2),
  ARGON2_PARALLELISM: z.coerce.number().int().min(1).default(1),
  /** Hashes running at once; the rest wait in a queue of HASH_QUEUE_LIMIT, then get 429. */
  HASH_CONCURRENCY: z.coerce.number().int().min(1).default(4),
  HASH_QUEUE_LIMIT: z.coerce.number().int().min(0).default(64),
  /** Longest wait in that queue before 429: far enough below the gateway's 5 s deadline (docs/adr/0091). */
  HASH_QUEUE_WAIT_MS: z.coerce.number().int().min(1).default(1500),
  /** Registrations per client address per hour (identity issue: per-address limits). */
  REGISTRATION_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Email availability checks per client address per hour. */
  EMAIL_VALIDATION_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(60),
  RESOURCE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Lifetime of a member's credential versions as the session check and the profile read share
   * them (docs/adr/0216); 0 turns it off. Within ADR 0042's 2 s bound on access decisions.
   */
  CREDENTIALS_CACHE_TTL_MS: z.coerce.number().int().min(0).max(2_000).default(1_000),
  /**
   * Lifetime of a cached profile (GET /user, sign-in's memberships and teams; ADR 0191): what a
   * lost invalidation event leaves stale at most; 0 turns the cache off.
   */
  PROFILE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /**
   * host:port of the Firebase Auth emulator (document 1, section A). Development and test only:
   * the emulator's tokens are unsigned, so production refuses it (TOOLCHAIN.md).
   */
  FIREBASE_AUTH_EMULATOR_HOST: z
    .string()
    .regex(/^[\w.-]+:\d+$/, 'host:port')
    .optional(),
  /** Service-account JSON file for firebase-admin; else Google application default credentials. */
  IDP_CREDENTIALS_FILE: z.string().optional(),
  /** Deadline of one call to the provider's REST API. */
  IDP_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Provider sign-ins (POST /idp/sign-in) per client address per hour: a cap on password guessing. */
  IDP_SIGN_IN_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(100),
  /** Provider mails (password reset, sign-in link) per client address per hour. */
  IDP_MAIL_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /**
   * The document store behind PUT /idp/docstore/user: `firestore` (firebase-admin) or `local`
   * (this service's database, development and test only; ADR 0052). Default: `firestore` in
   * production, else `local`.
   */
  DOCSTORE_BACKEND: z.enum(['firestore', 'local']).optional(),
  /** Social sign-in providers (OpenID Connect), JSON; see social/provider-config.ts and ADR 0066. */
  SOCIAL_PROVIDERS: socialProvidersEnv,
  /** How long a JWKS fetch may take, within the 5 s call deadline. */
  SOCIAL_JWKS_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Clock skew allowed on `exp`, `nbf` and `iat` of ID tokens. */
  SOCIAL_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  ...recoveryEnv,
  ...entitlementsEnv,
  /** Where uploaded photos are written (ADR 0063); a mounted volume on Kubernetes. */
  PHOTO_STORAGE_DIR: z.string().min(1).default('.data/photos'),
  /** URL prefix under which the operator serves PHOTO_STORAGE_DIR; photo URLs start with it. */
  PHOTO_PUBLIC_URL: z.string().min(1).default('/photos'),
};

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

/** Rules across variables that the per-variable schema cannot state. */
function productionProblems(config: ReturnType<typeof loadConfig<typeof identityEnv>>): string[] {
  if (config.MASTHEAD_ENV !== 'production') return [];
  const problems: string[] = [];
  if (config.FIREBASE_AUTH_EMULATOR_HOST)
    problems.push('FIREBASE_AUTH_EMULATOR_HOST: not allowed in production (emulator tokens are unsigned)');
  if (config.DOCSTORE_BACKEND === 'local') problems.push('DOCSTORE_BACKEND: `local` is for development and test only');
  problems.push(...entitlementsProductionProblems(config));
  return problems;
}

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(identityEnv, env);
  const problems = productionProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...config,
    DOCSTORE_BACKEND: config.DOCSTORE_BACKEND ?? (config.MASTHEAD_ENV === 'production' ? 'firestore' : 'local'),
  });
}
