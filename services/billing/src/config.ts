import { loadConfig, serviceEnv } from '@masthead/core/config';

export const billingEnv = { ...serviceEnv };

export type BillingConfig = ReturnType<typeof loadBillingConfig>;

export const loadBillingConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(billingEnv, env);
