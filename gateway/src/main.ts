import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';
import { startGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

const config = loadGatewayConfig();
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
runUntilSignalled(() => startGateway(config, logger), logger);
