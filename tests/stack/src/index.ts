export * from './stack.js';
export * from './http.js';
export * from './tenant.js';
export * from './connect-oauth.js';
export * from './billing-process.js';
export * from './fake-providers/index.js';
