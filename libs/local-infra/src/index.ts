export { freePort } from './ports.js';
export { cacheDir, resolveTools, type Tools } from './tools.js';
export { spawnManaged, type ExitStatus, type ManagedProcess, type SpawnManagedOptions } from './process.js';
export type { StartedServer, StartServerOptions } from './server.js';
export { startFerretDb } from './ferretdb.js';
export { startNats } from './nats.js';
export { startFirebaseAuth, type StartedFirebaseAuth } from './firebase-auth.js';
export { startInfrastructure, type Infrastructure, type InfrastructureOptions } from './infrastructure.js';
