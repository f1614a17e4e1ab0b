/**
 * Failures that mean "the database cannot be reached right now", as opposed to a refused or
 * malformed operation (docs/adr/0181): the MongoDB driver's transport errors, mongoose's, and
 * FerretDB's answers when the PostgreSQL under it is down or restarting.
 */
const TRANSPORT_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
]);
const BACKEND_DOWN =
  /failed to connect to|dial tcp|connection refused|conn closed|the database system is (starting up|shutting down|in recovery mode)|terminating connection|buffering timed out/i;

export function isDependencyFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (typeof name === 'string' && TRANSPORT_ERRORS.has(name)) return true;
  // FerretDB reports its backend's failures as server errors of the operation.
  return (name === 'MongoServerError' || name === 'MongooseError') && typeof message === 'string' && BACKEND_DOWN.test(message);
}
