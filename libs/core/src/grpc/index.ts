export * from './context.js';
export * from './call-scope.js';
export * from './server.js';
export * from './client.js';
export * from './health.js';
export * from './caller-scope.js';
