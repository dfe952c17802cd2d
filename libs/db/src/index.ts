export * from './bound.js';
export * from './entities/index.js';
export * from './orm.js';
export * from './outbox/index.js';
export * from './glossaries/glossary-tables.js';
export * from './glossaries/glossary-versions.js';
