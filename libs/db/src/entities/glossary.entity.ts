import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One glossary entry: a source term and the term that replaces it in translations. */
export interface GlossaryEntryRow {
  readonly source: string;
  readonly target: string;
}

/**
 * An admin-managed term list for one language pair (at most one a pair). `version` changes on every
 * write and never comes back, even across a delete and a create of the same pair (it is the time of
 * the write in milliseconds, or one more than the largest version, whichever is larger): it is part of
 * the translator's cache and coalescing keys, so an edit takes effect at once.
 */
export const Glossary = defineEntity({
  name: 'Glossary',
  tableName: 'glossaries',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(200),
    /** Our language codes, as GET /api/v1/translate/languages lists them. */
    sourceLang: p.string().length(35),
    targetLang: p.string().length(35),
    entries: p.json<GlossaryEntryRow[]>(),
    entryCount: p.integer(),
    version: p.bigint('number'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [{ name: 'glossaries_pair_unique', properties: ['sourceLang', 'targetLang'] }],
});
export type Glossary = InferEntity<typeof Glossary>;
