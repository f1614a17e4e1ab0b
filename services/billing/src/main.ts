import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startBillingService } from './app.js';
import { loadBillingConfig } from './config.js';

const config = loadBillingConfig();
const logger = createLogger({ name: 'billing', level: config.LOG_LEVEL });
runUntilSignalled(() => startBillingService(config, logger), logger);
