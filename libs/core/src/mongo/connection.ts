import mongoose, { type Connection } from 'mongoose';

export interface MongoOptions {
  url: string;
  /** Database of this service: `<prefix><service>`. One database per service (DESIGN.md). */
  dbName: string;
  /** How long the first connection may take (the database may be starting too). */
  connectTimeoutMs?: number;
  /** Emit command events (the bench's round-trip count, `countCommands`). */
  monitorCommands?: boolean;
}

// An operation waits this long for a reachable server, then fails as a dependency failure
// (503, docs/adr/0181): well inside a caller's 5 s deadline, so a caller hears why.
const SERVER_SELECTION_TIMEOUT_MS = 2_000;
// How often an unreachable server is probed again: requests succeed within seconds of its return.
const HEARTBEAT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * Opens the service's own database. `autoIndex` stays on: indexes are declared in schemas and
 * their creation is idempotent, which both MongoDB 7 and FerretDB accept at boot. Commands are
 * not buffered while the database is away: they fail fast instead of hanging past the caller's
 * deadline, and succeed again once the driver reconnects by itself.
 */
export async function connectMongo({
  url,
  dbName,
  connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
  monitorCommands = false,
}: MongoOptions): Promise<Connection> {
  const deadline = Date.now() + connectTimeoutMs;
  for (;;) {
    const connection = mongoose.createConnection(url, {
      dbName,
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      heartbeatFrequencyMS: HEARTBEAT_MS,
      bufferCommands: false,
      maxPoolSize: 20,
      monitorCommands,
    });
    try {
      await connection.asPromise();
      return connection;
    } catch (error) {
      await connection.close().catch(() => undefined);
      if (Date.now() >= deadline) throw error;
    }
  }
}
