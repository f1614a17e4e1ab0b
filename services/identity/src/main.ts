import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startIdentityService } from './app.js';
import { loadIdentityConfig } from './config.js';

const config = loadIdentityConfig();
const logger = createLogger({ name: 'identity', level: config.LOG_LEVEL });
runUntilSignalled(() => startIdentityService(config, logger), logger);
