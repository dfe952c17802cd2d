export * from './dead-letter-guard.js';
export * from './dead-letter-index/index.js';
export * from './dead-letter-message.js';
export * from './permanent-error.js';
export * from './read-cache-key.js';
export * from './guarded-consumer.js';
export * from './content/index.js';
export * from './content-store/index.js';
