export * from './connection.js';
export * from './ids.js';
export * from './claims.js';
