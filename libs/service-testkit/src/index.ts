export * from './infra.js';
export * from './harness.js';
export * from './recording-server.js';
