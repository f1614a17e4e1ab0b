export * from './ttl-cache.js';
