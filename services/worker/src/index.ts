export * from './config.js';
export * from './outbox-relay/outbox-relay.js';
export * from './plan-translations/planner.task.js';
export * from './project-translations/projection.task.js';
export * from './index-dead-letters/index-dead-letters.js';
export * from './worker.js';
