import { pino, type DestinationStream, type Logger } from 'pino';
import { currentCall } from '../grpc/call-scope.js';

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

/** Every record written while a call is served names its request; an explicit `req_guid` wins. */
function requestIdOfAmbientCall(): { req_guid?: string } {
  const call = currentCall();
  return call ? { req_guid: call.requestId } : {};
}

/** Structured JSON logger; records written inside a call carry that call's `req_guid`. */
export function createLogger({ name, level, destination }: LoggerOptions): Logger {
  const options = { name, level, mixin: requestIdOfAmbientCall, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
