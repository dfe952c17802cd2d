export * from './codec.js';
export * from './compatibility.js';
export * from './errors.js';
export * from './new-event.js';
export * from './registry.js';
