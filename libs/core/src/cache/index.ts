export * from './ttl-cache.js';
export * from './partitioned-read-cache.js';
