export * from './resource-directory.js';
