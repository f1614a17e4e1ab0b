export * from './runtime.js';
export * from './listen.js';
