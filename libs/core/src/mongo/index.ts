export * from './connection.js';
export * from './ids.js';
