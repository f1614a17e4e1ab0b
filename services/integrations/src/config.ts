import { loadConfig, serviceEnv } from '@masthead/core/config';

export const integrationsEnv = { ...serviceEnv };

export type IntegrationsConfig = ReturnType<typeof loadIntegrationsConfig>;

export const loadIntegrationsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(integrationsEnv, env);
