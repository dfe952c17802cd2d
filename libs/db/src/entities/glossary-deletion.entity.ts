import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A glossary deleted through the admin API whose copies at DeepL (named `tp <id>:<version>`) may
 * still exist. Written in the delete's transaction; a translator with DeepL deletes every version of
 * it listed in the account and then removes the row (services/translator/src/glossary/glossary-deletions.ts).
 */
export const GlossaryDeletion = defineEntity({
  name: 'GlossaryDeletion',
  tableName: 'glossary_deletions',
  properties: {
    glossaryId: p.uuid().primary(),
    deletedAt: p.datetime(),
  },
  /** The translator takes the oldest rows first. */
  indexes: [{ name: 'glossary_deletions_deleted_at_idx', properties: ['deletedAt'] }],
});
export type GlossaryDeletion = InferEntity<typeof GlossaryDeletion>;
