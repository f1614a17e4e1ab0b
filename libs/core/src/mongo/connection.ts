import mongoose, { type Connection } from 'mongoose';

export interface MongoOptions {
  url: string;
  /** Database of this service: `<prefix><service>`. One database per service (DESIGN.md). */
  dbName: string;
  /** Emit command events (the bench's round-trip count, `countCommands`). */
  monitorCommands?: boolean;
}

/**
 * Opens the service's own database. `autoIndex` stays on: indexes are declared in schemas and
 * their creation is idempotent, which both MongoDB 7 and FerretDB accept at boot.
 */
export async function connectMongo({ url, dbName, monitorCommands = false }: MongoOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    maxPoolSize: 20,
    monitorCommands,
  });
  await connection.asPromise();
  return connection;
}
