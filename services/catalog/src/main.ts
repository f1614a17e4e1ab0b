import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startCatalogService } from './app.js';
import { loadCatalogConfig } from './config.js';

const config = loadCatalogConfig();
const logger = createLogger({ name: 'catalog', level: config.LOG_LEVEL });
runUntilSignalled(() => startCatalogService(config, logger), logger);
