import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Singleton row (id = 1): which languages content is translated into, and whether at all. */
export const TranslationConfig = defineEntity({
  name: 'TranslationConfig',
  tableName: 'translation_config',
  properties: {
    id: p.integer().primary().autoincrement(false),
    targetLanguages: p.array(),
    enabled: p.boolean().default(true),
    /** Languages whose human translations are never replaced by a machine one, even when stale. */
    humanOnlyLanguages: p.array().default([]),
    /** Bumped on every change so processes can tell a newer config from the one they hold. */
    revision: p.integer().default(1),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type TranslationConfig = InferEntity<typeof TranslationConfig>;
