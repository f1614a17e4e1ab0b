import { ConfigError, loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { keyRingOrDevelopment, keyRingSetting, type KeyRing } from '@masthead/core/secrets';
import { z } from 'zod';

/** The SDK takes a host, port and protocol only: a path, query or credentials would be dropped. */
const isBareOrigin = (value: string): boolean => {
  const url = new URL(value);
  return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
};

/** Development and tests only: public, so refused in production (productionProblems). */
const DEVELOPMENT_KEY_RING = `dev:${Buffer.alloc(32, 'masthead-development-only-key!!!').toString('base64')}`;

export const billingEnv = {
  ...serviceEnv,
  /**
   * Where the card provider's API is reached, `http(s)://host[:port]`. Empty: the provider's own
   * API. Tests and `npm start` point it at a local fake (localstripe, docs/adr/0110); production
   * refuses plain http (secret keys and card data would cross the network in clear).
   */
  CARDPROVIDER_API_BASE: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'an http(s) URL')
    .refine(isBareOrigin, 'scheme, host and port only (no path, query or credentials)')
    .optional(),
  /**
   * Where the card provider's connect (OAuth) endpoints are reached, `http(s)://host[:port]`:
   * the authorize page admins are sent to and the token and deauthorize calls (docs/adr/0126).
   * Empty: the provider's own connect host. Tests point it at a local fake; production refuses
   * plain http (authorization codes and tokens would cross the network in clear).
   */
  CARDPROVIDER_CONNECT_BASE: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'an http(s) URL')
    .refine(isBareOrigin, 'scheme, host and port only (no path, query or credentials)')
    .optional(),
  /**
   * Deadline of one call to the card provider. Below the 5 s internal call deadline
   * (GRPC_DEADLINE_MS), so billing answers its documented error before its caller gives up.
   */
  CARDPROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(4000),
  /** Accounts holds account requests (POST /account-requests-payment reads and updates them). */
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
  /**
   * The key ring that seals card-provider secret keys at rest (docs/adr/0120):
   * `id:base64(32 bytes)[,id:base64…]`, the first one sealing new values, the others only
   * opening older ones during a rotation. Unset in production: no secret key can be stored or
   * used (the card-provider operations answer their configuration errors); elsewhere a fixed
   * development ring applies so that `npm start` and tests run without setup.
   */
  BILLING_SECRETS_KEYS: keyRingSetting(),
};

/** Rules across variables that the per-variable schema cannot state. */
function productionProblems(config: ReturnType<typeof loadConfig<typeof billingEnv>>): string[] {
  if (config.MASTHEAD_ENV !== 'production') return [];
  const problems: string[] = [];
  if (config.CARDPROVIDER_API_BASE?.startsWith('http://'))
    problems.push('CARDPROVIDER_API_BASE: plain http is not allowed in production (use https)');
  if (config.CARDPROVIDER_CONNECT_BASE?.startsWith('http://'))
    problems.push('CARDPROVIDER_CONNECT_BASE: plain http is not allowed in production (use https)');
  if (config.BILLING_SECRETS_KEYS === DEVELOPMENT_KEY_RING)
    problems.push('BILLING_SECRETS_KEYS: the development key ring is public; generate your own');
  return problems;
}

export type BillingConfig = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(billingEnv, env);
  const problems = productionProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The ring that seals provider secrets; null in production without BILLING_SECRETS_KEYS. */
export const keyRingOf = (config: Pick<BillingConfig, 'BILLING_SECRETS_KEYS' | 'MASTHEAD_ENV'>): KeyRing | null =>
  keyRingOrDevelopment(config.BILLING_SECRETS_KEYS, config.MASTHEAD_ENV, DEVELOPMENT_KEY_RING);
