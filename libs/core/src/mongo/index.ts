export * from './connection.js';
export * from './ids.js';
export * from './claims.js';
export * from './command-counts.js';
export * from './driver.js';
export * from './sealed-secret.js';
export * from './stored-text.js';
export * from './coalesced-writes.js';
