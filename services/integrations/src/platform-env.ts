import { serviceAddresses } from '@masthead/core/config';
import { z } from 'zod';

/**
 * The settings of the embedded settings, event and webhook areas (docs/adr/0170-0174), spread
 * into the service's environment schema (config.ts) beside the providers'. Their secrets share
 * the providers' key ring, INTEGRATIONS_SECRETS_KEYS (docs/adr/0171).
 */

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const platformEnv = {
  /** Accounts holds resources, partners and their settings (GET /integrations/resource-settings). */
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
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
export function platformProblems(config: { WEBHOOK_LEASE_MS: number; WEBHOOK_TIMEOUT_MS: number }): string[] {
  return config.WEBHOOK_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS
    ? ['WEBHOOK_LEASE_MS: must exceed WEBHOOK_TIMEOUT_MS, or a slow delivery is sent twice at once']
    : [];
}
