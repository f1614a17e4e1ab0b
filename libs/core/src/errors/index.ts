export * from './service-error.js';
export * from './catalogue.js';
export * from './common.js';
export * from './grpc-mapping.js';
export * from './zod.js';
export * from './dependency.js';
