export * from './stack.js';
export * from './http.js';
export * from './tenant.js';
