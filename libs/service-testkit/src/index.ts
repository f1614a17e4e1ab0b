export * from './infra.js';
export * from './harness.js';
