import { ConfigError, loadConfig, serviceEnv } from '@masthead/core/config';
import { platformEnv, platformProblems } from './platform-env.js';
import { providerEnv, providerProblems } from './provider-config/provider-env.js';

export const integrationsEnv = { ...serviceEnv, ...providerEnv, ...platformEnv };

export type IntegrationsConfig = ReturnType<typeof loadIntegrationsConfig>;

export function loadIntegrationsConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(integrationsEnv, env);
  const problems = [...providerProblems(config), ...platformProblems(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
