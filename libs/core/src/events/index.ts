export * from './catalogue.js';
export * from './publisher.js';
export * from './stream.js';
export * from './outbox.js';
export * from './subscribe.js';
export * from './durable-consumer.js';
export * from './stream-sender.js';
