import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The tombstone of a deleted entity: the version it was deleted at. A ContentChanged of that version
 * or older, and a TranslationCompleted of such a version, write nothing; a newer change brings the
 * entity back (the row stays: it still bars the older versions).
 */
export const ContentDeletion = defineEntity({
  name: 'ContentDeletion',
  tableName: 'content_deletions',
  properties: {
    entityType: p.string().length(100).primary(),
    entityId: p.string().length(200).primary(),
    module: p.string().length(100),
    deletedVersion: p.bigint('number'),
    deletedAt: p.datetime(),
  },
  /** The worker prunes tombstones by age, oldest first (prune-content-history). */
  indexes: [{ name: 'content_deletions_deleted_at_idx', properties: ['deletedAt'] }],
});
export type ContentDeletion = InferEntity<typeof ContentDeletion>;
