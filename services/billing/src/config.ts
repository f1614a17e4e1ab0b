import { ConfigError, loadConfig, serviceEnv } from '@masthead/core/config';
import { z } from 'zod';

/** The SDK takes a host, port and protocol only: a path, query or credentials would be dropped. */
const isBareOrigin = (value: string): boolean => {
  const url = new URL(value);
  return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
};

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
   * Deadline of one call to the card provider. Below the 5 s internal call deadline
   * (GRPC_DEADLINE_MS), so billing answers its documented error before its caller gives up.
   */
  CARDPROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(4000),
};

/** Rules across variables that the per-variable schema cannot state. */
function productionProblems(config: ReturnType<typeof loadConfig<typeof billingEnv>>): string[] {
  if (config.MASTHEAD_ENV !== 'production') return [];
  const problems: string[] = [];
  if (config.CARDPROVIDER_API_BASE?.startsWith('http://'))
    problems.push('CARDPROVIDER_API_BASE: plain http is not allowed in production (use https)');
  return problems;
}

export type BillingConfig = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(billingEnv, env);
  const problems = productionProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
