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
};

export type CommunityConfig = ReturnType<typeof loadCommunityConfig>;

export const loadCommunityConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(communityEnv, env);
