import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. They are censored wherever they appear in a log record, so
 * that a careless `log.info({ body })` cannot leak a password or token.
 */
const REDACTED_PATHS = [
  'password',
  'token',
  'refresh_token',
  'refreshToken',
  '*.password',
  '*.token',
  '*.refresh_token',
  '*.refreshToken',
  'headers.token',
  'headers["idp-token"]',
  'headers["service-api-key"]',
  'req.headers.token',
  'req.headers["idp-token"]',
  'req.headers["service-api-key"]',
];

export interface LoggerOptions {
  name: string;
  level: string;
  /** Where records go; standard output by default. Tests pass a sink to read them back. */
  destination?: DestinationStream;
}

/** Structured JSON logger; child loggers carry `req_guid` for the request being served. */
export function createLogger({ name, level, destination }: LoggerOptions): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
