import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Latest known source text of one field of one entity, with the version and hash it arrived with. */
export const SourceContent = defineEntity({
  name: 'SourceContent',
  tableName: 'source_contents',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    module: p.string().length(100),
    entityType: p.string().length(100),
    entityId: p.string().length(200),
    field: p.string().length(100),
    sourceLang: p.string().length(20),
    text: p.text(),
    /** SHA-256 hex of the text: an unchanged field requests no translation. */
    sourceHash: p.string().length(64),
    sourceVersion: p.bigint('number'),
    /** How the text is written: text, html or markdown; its translations are written the same way. */
    format: p.string().length(8).default('text'),
    /** When the planner last requested its translations (its transaction's start); null: never. */
    plannedAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [{ name: 'source_contents_entity_field_unique', properties: ['entityType', 'entityId', 'field'] }],
});
export type SourceContent = InferEntity<typeof SourceContent>;
