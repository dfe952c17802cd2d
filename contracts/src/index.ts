export * from './generated/events.js';
export * from './headers.js';
export * from './topics.js';
export * from './entity-types.js';
