import { destination as pinoDestination, pino, type DestinationStream, type Logger } from 'pino';
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
  // Entitlement tokens open paywalled content for their lifetime (docs/adr/0246).
  'entitlement_token',
  'entitlementToken',
  '*.password',
  '*.token',
  '*.refresh_token',
  '*.refreshToken',
  '*.entitlement_token',
  '*.entitlementToken',
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

/** How long a record may wait in the standard output's buffer. */
const FLUSH_INTERVAL_MS = 100;
/** Records are written to standard output once this many bytes are waiting (or at the interval). */
const WRITE_BLOCK_BYTES = 4096;

/**
 * Standard output written in blocks rather than one write(2) per record: the gateway logs every
 * request, and one system call per line was a twentieth of its CPU per answer (ADR 0196). Still
 * synchronous writes (no thread pool); what waits is written within FLUSH_INTERVAL_MS and at exit.
 */
function blockedStdout(): DestinationStream {
  const stream = pinoDestination({ dest: 1, sync: true, minLength: WRITE_BLOCK_BYTES });
  const flush = (): void => {
    try {
      stream.flushSync();
    } catch {
      // Closed (EPIPE): there is nowhere left to write.
    }
  };
  setInterval(flush, FLUSH_INTERVAL_MS).unref();
  process.once('exit', flush);
  return stream;
}

let stdout: DestinationStream | undefined;

/** Structured JSON logger; records written inside a call carry that call's `req_guid`. */
export function createLogger({ name, level, destination }: LoggerOptions): Logger {
  const options = { name, level, mixin: requestIdOfAmbientCall, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return pino(options, destination ?? (stdout ??= blockedStdout()));
}
