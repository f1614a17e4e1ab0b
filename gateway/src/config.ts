import { commonEnv, loadConfig, serviceAddresses } from '@masthead/core/config';
import { z } from 'zod';

export const gatewayEnv = {
  ...commonEnv,
  ...serviceAddresses,
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  /** Used only to drop cached resources when they change; the gateway works without it. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Origins allowed for every resource, comma-separated, on top of each resource's own list. */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    ),
  RESOURCE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Lifetime of a cached service-key resolution. Account changes drop entries at once (event);
   * this bounds how long a change to the account's user in identity goes unseen (ADR 0020).
   */
  SERVICE_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Lifetime of a cached session check (identity's Authenticate) per token and resource; 0 turns
   * the cache off. Identity's `member_access_changed` drops entries at once; this bounds what a
   * lost announcement leaves stale (ADR 0042).
   */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /**
   * Lifetime of catalog's public plan answers in the gateway; 0 turns the cache off. Catalog's
   * `catalog_updated` drops a resource's answers at once; this bounds what a lost announcement
   * leaves stale (ADR 0209).
   */
  PLAN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /**
   * Lifetime of the public event names the gateway checks POST /user/event against; an
   * operator's change (`event_names_updated`) drops them at once (ADR 0215).
   */
  EVENT_NAMES_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /** How often service-account usage (request count, last use) is reported to accounts. */
  SERVICE_USAGE_FLUSH_MS: z.coerce.number().int().positive().default(1000),
  /**
   * On SIGTERM the gateway answers /readyz with 503 at once and keeps serving this long before it
   * stops listening, so that load balancers move new requests elsewhere first (docs/adr/0182).
   */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(30_000).default(0),
  /** Proxy hops to trust for the client address (express `trust proxy`). */
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'like 1mb or 512kb')
    .default('1mb'),
  /**
   * Largest photo upload (POST /user/photo), in bytes: 5 MiB by default; at most 12 MiB, which
   * keeps the identity call under its 16 MiB gRPC message limit (ADR 0063).
   */
  PHOTO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(12 * 1024 * 1024)
    .default(5 * 1024 * 1024),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(gatewayEnv, env);
