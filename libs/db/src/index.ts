export * from './bound.js';
export * from './entities/index.js';
export * from './orm.js';
export * from './outbox.js';
