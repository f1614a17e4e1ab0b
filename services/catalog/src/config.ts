import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';

export const catalogEnv = {
  ...serviceEnv,
  // Member views ask accounts (a partner's resources), identity (a user's resources) and
  // community (does a team exist).
  ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
  IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
  COMMUNITY_ADDR: serviceAddresses.COMMUNITY_ADDR,
};

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;

export const loadCatalogConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(catalogEnv, env);
