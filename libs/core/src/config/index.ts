export * from './load-config.js';
export * from './fragments.js';
