import { ConfigError, loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { keyRingOrDevelopment, keyRingSetting, type KeyRing } from '@masthead/core/secrets';
import { z } from 'zod';

/** Development and tests only: public, so refused in production (productionProblems). */
const DEVELOPMENT_KEY_RING = `dev:${Buffer.alloc(32, 'masthead-integrations-dev-only-k').toString('base64')}`;

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const integrationsEnv = {
  ...serviceEnv,
  /** Accounts holds resources, partners and their settings (GET /integrations/resource-settings). */
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
  /**
   * The key ring that seals the secrets integrations stores (provider keys, the captcha secret,
   * webhook signing secrets): `id:base64(32 bytes)[,id:base64…]`, the first one sealing, all
   * opening (rotation as in docs/adr/0120). Unset in production: no secret can be stored or used;
   * elsewhere a fixed development ring applies so that `npm start` and tests run without setup.
   */
  INTEGRATIONS_SECRETS_KEYS: keyRingSetting(),
  /**
   * How long a process reuses what operators configure (inherited resource settings, captcha
   * settings, the public event names) before reading it again. Changes made through this
   * process, and `resource_updated` announcements, drop the copy at once (docs/adr/0171).
   */
  SETTINGS_CACHE_TTL_MS: milliseconds(30_000),
  /** Deliver signed outbound webhooks from this process (docs/adr/0173); `false` for API-only replicas. */
  WEBHOOKS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** Deadline of one webhook request to a publisher's endpoint. */
  WEBHOOK_TIMEOUT_MS: positive(10_000),
  /**
   * How long a claimed delivery attempt is held before another process may take it over: the
   * request deadline plus a margin, so a live sender is never overtaken (docs/adr/0174).
   */
  WEBHOOK_LEASE_MS: positive(30_000),
  /** How often the dispatcher looks for deliveries that are due. */
  WEBHOOK_POLL_MS: positive(1_000),
  /** Deliveries sent at once by one process. */
  WEBHOOK_CONCURRENCY: positive(8),
  /**
   * How long the event stream waits for this process to record an event before it offers the
   * event again (the durable consumer's ack wait).
   */
  WEBHOOK_ACK_WAIT_MS: positive(30_000),
};

/** Rules across variables that the per-variable schema cannot state. */
function productionProblems(config: ReturnType<typeof loadConfig<typeof integrationsEnv>>): string[] {
  const problems: string[] = [];
  if (config.MASTHEAD_ENV === 'production' && config.INTEGRATIONS_SECRETS_KEYS === DEVELOPMENT_KEY_RING)
    problems.push('INTEGRATIONS_SECRETS_KEYS: the development key ring is public; generate your own');
  if (config.WEBHOOK_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS)
    problems.push('WEBHOOK_LEASE_MS: must exceed WEBHOOK_TIMEOUT_MS, or a slow delivery is sent twice at once');
  return problems;
}

export type IntegrationsConfig = ReturnType<typeof loadIntegrationsConfig>;

export function loadIntegrationsConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(integrationsEnv, env);
  const problems = productionProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The ring that seals integrations' secrets; null in production without INTEGRATIONS_SECRETS_KEYS. */
export function keyRingOf(config: Pick<IntegrationsConfig, 'INTEGRATIONS_SECRETS_KEYS' | 'MASTHEAD_ENV'>): KeyRing | null {
  return keyRingOrDevelopment(config.INTEGRATIONS_SECRETS_KEYS, config.MASTHEAD_ENV, DEVELOPMENT_KEY_RING);
}
