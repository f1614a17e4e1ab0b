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
  /**
   * How often a replica renews what is due (docs/adr/0145); 0 turns the timer off (the operator
   * RPC RunDueRenewals still runs a pass). Every replica may run it: each attempt is one
   * transaction and one ledger-guarded charge, whoever runs it.
   */
  RENEWAL_INTERVAL_MS: z.coerce.number().int().nonnegative().default(60_000),
  /**
   * Hours to wait after each failed renewal attempt, comma-separated; one failure more than
   * listed lapses the membership. Default: retry after 1, 3 and 7 days.
   */
  RENEWAL_RETRY_HOURS: z
    .string()
    .default('24,72,168')
    .refine((text) => text.trim() === '' || text.split(',').every((item) => /^\s*\d+(\.\d+)?\s*$/.test(item)), 'comma-separated hours')
    .transform((text) => (text.trim() === '' ? [] : text.split(',').map(Number))),
  /** Renewal records one pass takes at most. */
  RENEWAL_BATCH: z.coerce.number().int().positive().default(100),
  /**
   * How often a replica makes the refunds the provider could not make when they were owed
   * (docs/adr/0201); 0 turns the timer off (the next completion of the checkout still makes
   * them). Every replica may run it: each refund is one ledger-guarded provider write.
   */
  REFUND_RETRY_INTERVAL_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** Owed refunds one pass takes at most. */
  REFUND_BATCH: z.coerce.number().int().positive().default(100),
  /**
   * The card provider's webhook endpoint secrets (`whsec_…`), comma-separated: an event verifies
   * with any of them (a rotation, or several provider accounts posting to one endpoint;
   * docs/adr/0147). Empty: POST /webhooks/cardprovider answers 503 webhook_not_configured.
   */
  CARDPROVIDER_WEBHOOK_SECRETS: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  /** Accounts holds account requests (POST /account-requests-payment reads and updates them). */
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
  /** Catalog prices checkout's Pricings and keeps the memberships billing sells (docs/adr/0142). */
  CATALOG_ADDR: serviceAddresses.CATALOG_ADDR,
  /** Identity names the resources where a member has a relationship (document 1 E's grouped reads). */
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
  /**
   * Community sells tickets (its ticket inventory) and keeps sponsorships: checkout's `ti_ticket`
   * and `gift` items, and who pays for a sponsored membership's renewal (docs/adr/0142, 0158).
   */
  COMMUNITY_ADDR: serviceAddresses.COMMUNITY_ADDR,
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
