import { loadConfig, serviceEnv } from '@masthead/core/config';

export const catalogEnv = { ...serviceEnv };

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;

export const loadCatalogConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(catalogEnv, env);
