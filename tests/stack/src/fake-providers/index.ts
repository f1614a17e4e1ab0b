export * from './server.js';
export * from './fake-audience.js';
export * from './fake-crm.js';
export * from './fake-listmgr.js';
export * from './disputing-card-provider.js';
