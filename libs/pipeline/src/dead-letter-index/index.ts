export * from './dead-letter-entry.js';
export * from './dead-letter-index.js';
export * from './dead-letter-payload.js';
export * from './dead-letter-selection.js';
