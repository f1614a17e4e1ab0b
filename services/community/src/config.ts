import { loadConfig, serviceEnv } from '@masthead/core/config';

export const communityEnv = { ...serviceEnv };

export type CommunityConfig = ReturnType<typeof loadCommunityConfig>;

export const loadCommunityConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(communityEnv, env);
