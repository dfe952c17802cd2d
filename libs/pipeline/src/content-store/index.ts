// The content store: the one owner of the SQL of source_contents, content_translations,
// content_deletions, content_reports, translation_config and translation_backfills (docs/decisions.md, "One owner per
// table"). Every other module calls these functions.
export * from './content-reads.js';
export * from './content-reports.js';
export * from './em.js';
export * from './entity-locks.js';
export * from './retention.js';
export * from './source-rows.js';
export * from './stored-names.js';
export * from './translation-config.js';
export * from './translation-upsert.js';
export * from './backfills.js';
export * from './backfill-fields.js';
