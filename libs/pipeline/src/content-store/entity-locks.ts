import { executeBound } from '@tp/db';

import type { Em, EntityAddress } from './em.js';

/** The advisory lock key of one entity's translations (hashed by Postgres to a bigint). */
const lockKey = ({ entityType, entityId }: EntityAddress): string =>
  `content_translations:${entityType.length}:${entityType}:${entityId}`;

/**
 * Transaction-scoped shared locks on the entities whose translations the projection is about to write.
 * Projections share them; a deletion (lockEntityTranslations) waits for them, and they wait for it. So
 * a result whose statement began before a deletion committed cannot insert a row after the deletion
 * removed the entity's rows: it runs after the commit and sees the tombstone.
 */
export async function shareEntityLocks(em: Em, entities: readonly EntityAddress[]): Promise<void> {
  const keys = [...new Set(entities.map(lockKey))].sort();
  if (keys.length === 0) return;
  // The keys travel as JSON: the driver would spread an array parameter.
  await executeBound(
    em,
    'select pg_advisory_xact_lock_shared(hashtextextended(k, 0)) from jsonb_array_elements_text(?::jsonb) as k',
    [JSON.stringify(keys)],
    'all',
  );
}

/** The exclusive lock of one entity's translations, taken before removing them (see shareEntityLocks). */
export async function lockEntityTranslations(em: Em, entity: EntityAddress): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [lockKey(entity)]);
}
