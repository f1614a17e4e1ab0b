import { loadConfig, serviceAddresses, serviceEnv } from '@masthead/core/config';

export const communityEnv = { ...serviceEnv, CATALOG_ADDR: serviceAddresses.CATALOG_ADDR, BILLING_ADDR: serviceAddresses.BILLING_ADDR };

export type CommunityConfig = ReturnType<typeof loadCommunityConfig>;

export const loadCommunityConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(communityEnv, env);
