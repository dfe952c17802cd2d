import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A stored translation of one field of one entity into one language (the projection's output). */
export const ContentTranslation = defineEntity({
  name: 'ContentTranslation',
  tableName: 'content_translations',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    entityType: p.string().length(100),
    entityId: p.string().length(200),
    field: p.string().length(100),
    targetLang: p.string().length(20),
    sourceLang: p.string().length(20),
    translatedText: p.text(),
    sourceHash: p.string().length(64),
    /** Source version the translation was made from; an older one never overwrites a newer one. */
    sourceVersion: p.bigint('number'),
    /**
     * When the request behind this translation was made (epoch ms; TranslationCompleted v3): of two
     * results of the same source version, the later request's wins.
     */
    requestedAt: p.bigint('number').default(0),
    engine: p.string().length(50),
    truncated: p.boolean().default(false),
    /**
     * A weaker engine's result (TranslationCompleted v4): an earlier engine that serves the pair
     * failed. Requested again by the read path; a result that is not a fallback replaces it.
     */
    fallback: p.boolean().default(false),
    /** `machine` (the projection) or `human` (PUT .../translations/:lang); a machine result never replaces a human one of the same source version. */
    origin: p.string().length(10).default('machine'),
    /** The API key that wrote a human translation; null for a machine one. */
    writtenBy: p.uuid().nullable(),
    /** A human translation made from an older source text (kept, and served, until replaced). */
    stale: p.boolean().default(false),
    /** The TranslationCompleted event last applied, for tracing and idempotence. */
    lastEventId: p.uuid(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [
    {
      name: 'content_translations_entity_field_lang_unique',
      properties: ['entityType', 'entityId', 'field', 'targetLang'],
    },
  ],
});
export type ContentTranslation = InferEntity<typeof ContentTranslation>;
