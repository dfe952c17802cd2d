export * from './content-events.js';
export * from './content-rules.js';
export * from './message-keys.js';
export * from './source-hash.js';
export * from './stored-field.js';
