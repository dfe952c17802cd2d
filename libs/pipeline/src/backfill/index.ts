export * from './backfill-view.js';
export * from './start-backfill.js';
