import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { z } from 'zod';
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
  /** argon2id parameters: OWASP's recommendation (19 MiB, t=2, p=1). */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(8192).default(19456),
  ARGON2_ITERATIONS: z.coerce.number().int().min(1).default(2),
  ARGON2_PARALLELISM: z.coerce.number().int().min(1).default(1),
  /** Hashes running at once; the rest wait in a queue of HASH_QUEUE_LIMIT, then get 429. */
  HASH_CONCURRENCY: z.coerce.number().int().min(1).default(4),
  HASH_QUEUE_LIMIT: z.coerce.number().int().min(0).default(64),
  /** Registrations per client address per hour (identity issue: per-address limits). */
  REGISTRATION_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Email availability checks per client address per hour. */
  EMAIL_VALIDATION_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(60),
  RESOURCE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** Social sign-in providers (OpenID Connect), JSON; see social/provider-config.ts and ADR 0066. */
  SOCIAL_PROVIDERS: socialProvidersEnv,
  /** How long a JWKS fetch may take, within the 5 s call deadline. */
  SOCIAL_JWKS_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Clock skew allowed on `exp`, `nbf` and `iat` of ID tokens. */
  SOCIAL_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  ...recoveryEnv,
  /** Where uploaded photos are written (ADR 0063); a mounted volume on Kubernetes. */
  PHOTO_STORAGE_DIR: z.string().min(1).default('.data/photos'),
  /** URL prefix under which the operator serves PHOTO_STORAGE_DIR; photo URLs start with it. */
  PHOTO_PUBLIC_URL: z.string().min(1).default('/photos'),
};

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export const loadIdentityConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(identityEnv, env);
