import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startAccountsService } from './app.js';
import { loadAccountsConfig } from './config.js';

const config = loadAccountsConfig();
const logger = createLogger({ name: 'accounts', level: config.LOG_LEVEL });
runUntilSignalled(() => startAccountsService(config, logger), logger);
