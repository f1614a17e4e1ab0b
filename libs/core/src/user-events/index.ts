export * from './normalise.js';
export * from './user-event.js';
export * from './user-event.errors.js';
