import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';
import { z } from 'zod';

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

export const accountsEnv = {
  ...serviceEnv,
  /** Identity holds the users service accounts act as, and the users' countries GET /countries groups. */
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
  /**
   * Base URL of the external IP-location provider (an ipapi.co-compatible JSON API, e.g.
   * https://ipapi.co). Empty: no external lookups, the installed database answers.
   */
  GEOINFO_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'an http(s) URL')
    .optional(),
  /** The provider's API key, sent as the `key` query parameter; empty for the free tier. */
  GEOINFO_API_KEY: z.string().optional(),
  GEOINFO_TIMEOUT_MS: z.coerce.number().int().positive().default(1500),
  /** How long a provider answer is reused for the same IP. Locations change slowly: a day. */
  GEOINFO_CACHE_TTL_MS: milliseconds(24 * 3600 * 1000),
  /** After a provider failure, lookups use the installed database for this long. */
  GEOINFO_RETRY_AFTER_MS: milliseconds(30_000),
  /** Currency labels of resources without a `currencies` setting, comma-separated; empty: none. */
  DEFAULT_CURRENCIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((label) => label.trim())
        .filter(Boolean),
    ),
  /**
   * How long the country list, the grouped users' countries and the resources' settings they
   * depend on are kept in memory (a `resource_updated` event drops a resource's settings sooner).
   */
  LOCALIZATION_CACHE_TTL_MS: milliseconds(60_000),
  /**
   * The fixed deployment resource account requests are recorded under (document 2, J: "a fixed
   * deployment resource"; a `resource` header selects nothing). 0: none configured, the records
   * and their events carry resource 0.
   */
  ACCOUNT_REQUEST_RESOURCE_ID: z.coerce.number().int().min(0).default(0),
};

export type AccountsConfig = ReturnType<typeof loadAccountsConfig>;

export const loadAccountsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(accountsEnv, env);
