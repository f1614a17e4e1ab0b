import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';

export const accountsEnv = {
  ...serviceEnv,
  /** Identity holds the users service accounts act as (service-account users). */
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
};

export type AccountsConfig = ReturnType<typeof loadAccountsConfig>;

export const loadAccountsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(accountsEnv, env);
