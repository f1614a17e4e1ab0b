import { loadConfig, serviceEnv } from '@masthead/core/config';

export const accountsEnv = { ...serviceEnv };

export type AccountsConfig = ReturnType<typeof loadAccountsConfig>;

export const loadAccountsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(accountsEnv, env);
