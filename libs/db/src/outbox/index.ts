// The outbox's one owner: every statement naming the table (docs/decisions.md, "One owner per table").
export * from './outbox.js';
export * from './relay-rows.js';
