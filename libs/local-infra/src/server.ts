import type { ManagedProcess } from './process.js';

/** A server started on a loopback port. */
export interface StartedServer {
  /** Connection string for clients, e.g. mongodb://127.0.0.1:PORT/ or nats://127.0.0.1:PORT */
  url: string;
  port: number;
  process: ManagedProcess;
}

export interface StartServerOptions {
  /** Data folder; created when missing and kept on stop, so data survives a restart. */
  dataDir: string;
  /** Fixed port; a free one is chosen when omitted. */
  port?: number;
  /** Server output is appended here; discarded when omitted. */
  logFile?: string;
  /** Copy server output to stdout, prefixed with the server name. */
  echo?: boolean;
  /** See SpawnManagedOptions.ownProcessGroup. */
  ownProcessGroup?: boolean;
  /** Binary to run; resolveTools() when omitted. */
  binary?: string;
  /** FerretDB only: PostgreSQL's binaries folder; resolveTools() when omitted. */
  postgresBinDir?: string;
  /** FerretDB only: the data is thrown away after the run (tests), so PostgreSQL skips fsync. */
  ephemeral?: boolean;
}

export const LOOPBACK = '127.0.0.1';
