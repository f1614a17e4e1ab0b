export * from './stack.js';
export * from './http.js';
export * from './tenant.js';
export * from './connect-oauth.js';
export * from './fake-providers/index.js';
