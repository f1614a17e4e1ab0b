import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startCommunityService } from './app.js';
import { loadCommunityConfig } from './config.js';

const config = loadCommunityConfig();
const logger = createLogger({ name: 'community', level: config.LOG_LEVEL });
runUntilSignalled(() => startCommunityService(config, logger), logger);
