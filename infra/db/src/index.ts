export * from './ensure-database.js';
export * from './migrate.js';
export * from './migration-config.js';
