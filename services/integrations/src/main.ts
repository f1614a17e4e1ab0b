import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startIntegrationsService } from './app.js';
import { loadIntegrationsConfig } from './config.js';

const config = loadIntegrationsConfig();
const logger = createLogger({ name: 'integrations', level: config.LOG_LEVEL });
runUntilSignalled(() => startIntegrationsService(config, logger), logger);
