import { join, resolve } from 'node:path';

/** What the dev stack reads from its environment, validated once at start. */
export interface DevstackConfig {
  /** Gateway listen address. */
  host: string;
  port: number;
  logLevel: string;
  /** LOG_TO_CONSOLE=1: child output also goes to the console, prefixed with its name. */
  logToConsole: boolean;
  repoRoot: string;
  /** <repo>/.data (MASTHEAD_DATA_DIR names another), kept across restarts. */
  dataDir: string;
  logDir: string;
}

/** Throws an Error naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv, repoRoot: string): DevstackConfig {
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const dataDir = env.MASTHEAD_DATA_DIR ? resolve(env.MASTHEAD_DATA_DIR) : join(repoRoot, '.data');
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port,
    logLevel: env.LOG_LEVEL || 'info',
    logToConsole: env.LOG_TO_CONSOLE === '1',
    repoRoot,
    dataDir,
    logDir: join(dataDir, 'logs'),
  });
}
