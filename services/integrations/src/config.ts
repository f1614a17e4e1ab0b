import { ConfigError, loadConfig, serviceEnv } from '@masthead/core/config';
import { providerEnv, providerProblems } from './provider-config/provider-env.js';

export const integrationsEnv = { ...serviceEnv, ...providerEnv };

export type IntegrationsConfig = ReturnType<typeof loadIntegrationsConfig>;

export function loadIntegrationsConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(integrationsEnv, env);
  const problems = providerProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
