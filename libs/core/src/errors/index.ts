export * from './service-error.js';
export * from './grpc-mapping.js';
export * from './zod.js';
