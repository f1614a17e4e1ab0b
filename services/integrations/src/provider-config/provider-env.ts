import { serviceAddresses } from '@masthead/core/config';
import { keyRingOrDevelopment, keyRingSetting, type KeyRing } from '@masthead/core/secrets';
import { z } from 'zod';

/**
 * The settings of the email-list and CRM providers (docs/adr/0160, 0164), spread into the
 * service's environment schema (config.ts). Kept in their own fragment so that the other areas
 * of the service add theirs beside it.
 */

/** A provider base is a bare origin: the adapters append the provider's own paths. */
const providerBase = z
  .string()
  .url()
  .regex(/^https?:\/\//, 'an http(s) URL')
  .refine((value) => {
    const url = new URL(value);
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  }, 'scheme, host and port only (no path, query or credentials)')
  .optional();

/** Development and tests only: public, so refused in production (providerProblems). */
const DEVELOPMENT_KEY_RING = `dev:${Buffer.alloc(32, 'masthead-integrations-dev-only-k').toString('base64')}`;

export const providerEnv = {
  /** Identity answers the member lookups of target selection and the CRM membership check. */
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
  /**
   * The key ring that seals provider secrets at rest: `id:base64(32 bytes)[,id:…]`, the first
   * key sealing, all opening (rotation: docs/adr/0164). Unset outside production: a fixed
   * development ring. Unset in production: no secret can be stored or used.
   */
  INTEGRATIONS_SECRETS_KEYS: keyRingSetting(),
  /** `audience` API origin; empty: `https://<data center>.api.mailchimp.com`. */
  AUDIENCE_API_BASE: providerBase,
  /** `crm` API origin; empty: `https://<account>.api-us1.com`. */
  CRM_API_BASE: providerBase,
  /** `listmgr` API origin; empty: `https://api.createsend.com`. */
  LISTMGR_API_BASE: providerBase,
  /**
   * Deadline of one provider call, retries included; the caller's own deadline (GRPC_DEADLINE_MS
   * from the gateway) shortens it further.
   */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(4000),
};

export interface ProviderSettings {
  MASTHEAD_ENV: string;
  INTEGRATIONS_SECRETS_KEYS?: string | undefined;
  AUDIENCE_API_BASE?: string | undefined;
  CRM_API_BASE?: string | undefined;
  LISTMGR_API_BASE?: string | undefined;
  PROVIDER_TIMEOUT_MS: number;
}

/** Rules across variables that the per-variable schema cannot state. */
export function providerProblems(config: ProviderSettings): string[] {
  if (config.MASTHEAD_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of ['AUDIENCE_API_BASE', 'CRM_API_BASE', 'LISTMGR_API_BASE'] as const) {
    if (config[name]?.startsWith('http://')) problems.push(`${name}: plain http is not allowed in production (use https)`);
  }
  if (config.INTEGRATIONS_SECRETS_KEYS === DEVELOPMENT_KEY_RING)
    problems.push('INTEGRATIONS_SECRETS_KEYS: the development key ring is public; generate your own');
  return problems;
}

/** The ring that seals provider secrets; null in production without INTEGRATIONS_SECRETS_KEYS. */
export const providerKeyRing = (config: Pick<ProviderSettings, 'INTEGRATIONS_SECRETS_KEYS' | 'MASTHEAD_ENV'>): KeyRing | null =>
  keyRingOrDevelopment(config.INTEGRATIONS_SECRETS_KEYS, config.MASTHEAD_ENV, DEVELOPMENT_KEY_RING);
