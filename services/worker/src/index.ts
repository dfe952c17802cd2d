export * from './config.js';
export * from './outbox-relay/outbox-relay.js';
export * from './worker.js';
