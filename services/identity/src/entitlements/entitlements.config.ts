import { keyRingOrDevelopment, keyRingSetting, type KeyRing } from '@masthead/core/secrets';
import { z } from 'zod';

/** Outside production, when IDENTITY_SECRETS_KEYS is unset: public, so refused in production. */
export const DEVELOPMENT_KEY_RING = `dev:${Buffer.alloc(32, 'masthead-identity-dev-only-key!!').toString('base64')}`;

/** Settings of entitlement tokens and the keys that sign them (docs/adr/0246, 0247). */
export const entitlementsEnv = {
  /**
   * The key ring that seals the entitlement signing keys at rest (the machinery of docs/adr/0120):
   * `id:base64(32 bytes)[,id:base64…]`, the first sealing. Unset in production: identity signs
   * nothing, publishes an empty key set and answers the token's absence (docs/adr/0247).
   */
  IDENTITY_SECRETS_KEYS: keyRingSetting(),
  /** An entitlement token's lifetime: at most 15 minutes (issue 30), the bound of a revocation. */
  ENTITLEMENT_TOKEN_TTL_SECONDS: z.coerce.number().int().min(1).max(900).default(900),
  /** `iss` of entitlement tokens and revocation lists; verifiers may check it. */
  ENTITLEMENT_ISSUER: z.string().trim().min(1).max(200).default('masthead'),
};

export interface EntitlementsConfig {
  IDENTITY_SECRETS_KEYS?: string | undefined;
  ENTITLEMENT_TOKEN_TTL_SECONDS: number;
  ENTITLEMENT_ISSUER: string;
  MASTHEAD_ENV: string;
}

/** Rules across variables, for the config loader's production check. */
export const entitlementsProductionProblems = (config: EntitlementsConfig): string[] =>
  config.IDENTITY_SECRETS_KEYS === DEVELOPMENT_KEY_RING
    ? ['IDENTITY_SECRETS_KEYS: the development key ring is public; generate your own']
    : [];

/** The ring that seals signing keys; null in production without IDENTITY_SECRETS_KEYS. */
export const signingKeyRing = (config: EntitlementsConfig): KeyRing | null =>
  keyRingOrDevelopment(config.IDENTITY_SECRETS_KEYS, config.MASTHEAD_ENV, DEVELOPMENT_KEY_RING);

/**
 * Every duration of tokens, keys and lists, from the token lifetime alone, so that a test with a
 * lifetime of seconds sees the whole rotation in seconds (docs/adr/0247).
 */
export interface EntitlementTiming {
  tokenTtlMs: number;
  /**
   * The longest a copy of the key set is kept anywhere: identity's reload of the stored keys,
   * the gateway's copy and an edge's (Cache-Control max-age) each hold it at most this long.
   */
  keySetMaxAgeMs: number;
  /**
   * A new key is published this long before it signs: a token lifetime (issue 30) plus the three
   * copies above, so every verifier holds it before the first token it signs.
   */
  rotationLeadMs: number;
  /** A key stays published this long after its successor signs: its last token's life, plus one age for clock skew. */
  retireAfterMs: number;
  /** A revocation list is valid this long; verifiers renew it after half. */
  revocationListTtlMs: number;
}

/** The key set's age: a sixth of a token lifetime, at most two minutes. */
const MAX_KEY_SET_AGE_MS = 120_000;
const REVOCATION_LIST_TTL_MS = 60_000;

export function entitlementTiming(tokenTtlSeconds: number): EntitlementTiming {
  const tokenTtlMs = tokenTtlSeconds * 1000;
  const keySetMaxAgeMs = Math.min(MAX_KEY_SET_AGE_MS, Math.floor(tokenTtlMs / 6));
  return {
    tokenTtlMs,
    keySetMaxAgeMs,
    rotationLeadMs: tokenTtlMs + 3 * keySetMaxAgeMs,
    retireAfterMs: tokenTtlMs + keySetMaxAgeMs,
    revocationListTtlMs: REVOCATION_LIST_TTL_MS,
  };
}
