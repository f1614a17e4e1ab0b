export * from './infra.js';
export * from './harness.js';
export * from './recording-server.js';
// The run's provided values (vitest ProvidedContext), declared once for every test package.
export * from './provided.js';
export * from './process-client.js';
export * from './webhook-receiver.js';
export * from './dark-link.js';
