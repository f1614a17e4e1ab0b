export * from './parse.js';
export * from './query.js';
export * from './wire.js';
