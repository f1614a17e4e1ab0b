import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { z } from 'zod';

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const communityEnv = {
  ...serviceEnv,
  CATALOG_ADDR: serviceAddresses.CATALOG_ADDR,
  BILLING_ADDR: serviceAddresses.BILLING_ADDR,
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
  /** How long checkout's unconfirmed ticket reservations hold their units (docs/adr/0151). */
  TICKET_HOLD_SECONDS: seconds(15 * 60),
  /** Lifetime of a pass authorization token (docs/adr/0153). */
  PASS_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600),
  /**
   * How often a replica finishes claims whose membership grant ended without a verdict
   * (docs/adr/0233); 0 turns the timer off (the member's retry still finishes them).
   */
  GRANT_PASS_INTERVAL_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** How long a claim may be granting before the pass takes it over: well past any request's deadline. */
  GRANT_LEASE_MS: z.coerce.number().int().positive().default(120_000),
  /** Claims of each kind one pass takes at most. */
  GRANT_PASS_BATCH: z.coerce.number().int().positive().default(100),
};

export type CommunityConfig = ReturnType<typeof loadCommunityConfig>;

export const loadCommunityConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(communityEnv, env);
