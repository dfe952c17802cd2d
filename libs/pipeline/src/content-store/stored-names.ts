import { FREE_TEXT_ENTITY_TYPE } from '@tp/contracts';
import { executeBound } from '@tp/db';

import { entitiesJson, entityKey, type Em, type EntityAddress } from './em.js';
import { lockEntityTranslations } from './entity-locks.js';

/** An entity as stored: its type, id and module (null when only translations or a tombstone name it). */
export interface StoredEntityName extends EntityAddress {
  readonly module: string | null;
}

/**
 * Up to `limit` entities with source content, in (type, id) order after `after` (a keyset walk of
 * source_contents' unique index, so each page costs its own rows, however large the table).
 */
export async function entitiesWithSources(
  em: Em,
  after: EntityAddress | undefined,
  limit: number,
): Promise<StoredEntityName[]> {
  const rows = await executeBound<{ entity_type: string; entity_id: string; module: string }>(
    em,
    'select entity_type, entity_id, min(module) as module from source_contents ' +
      'where (entity_type, entity_id) > (?, ?) group by entity_type, entity_id ' +
      'order by entity_type, entity_id limit ?',
    [after?.entityType ?? '', after?.entityId ?? '', limit],
    'all',
  );
  return rows.map((r) => ({ entityType: r.entity_type, entityId: r.entity_id, module: r.module }));
}

/**
 * The entities that translations (free text aside) or tombstones name without any source content:
 * what a deletion or a removed field left. Read whole: such entities are few.
 */
export async function entitiesWithoutSources(em: Em): Promise<StoredEntityName[]> {
  const rows = await executeBound<{ entity_type: string; entity_id: string; module: string | null }>(
    em,
    'select entity_type, entity_id, max(module) as module from (' +
      'select entity_type, entity_id, null::text as module from content_translations where entity_type <> ? ' +
      'union all select entity_type, entity_id, module from content_deletions) as named ' +
      'where not exists (select 1 from source_contents s ' +
      'where s.entity_type = named.entity_type and s.entity_id = named.entity_id) ' +
      'group by entity_type, entity_id order by entity_type, entity_id',
    [FREE_TEXT_ENTITY_TYPE],
    'all',
  );
  return rows.map((r) => ({ entityType: r.entity_type, entityId: r.entity_id, module: r.module }));
}

/** What purging some entities removed, per table. */
export interface PurgedRows {
  readonly sources: number;
  readonly translations: number;
  readonly tombstones: number;
  readonly reports: number;
}

/**
 * Removes everything stored under the entities (sources, translations, tombstones, tracked reports),
 * in the caller's transaction, under each entity's translation lock (taken in key order), so a
 * projection batch under way is not overtaken (entity-locks.ts). Answers the rows removed per table.
 */
export async function purgeEntities(em: Em, entities: readonly EntityAddress[]): Promise<PurgedRows> {
  if (entities.length === 0) return { sources: 0, translations: 0, tombstones: 0, reports: 0 };
  const ordered = [...entities].sort((a, b) => (entityKey(a) < entityKey(b) ? -1 : 1));
  for (const entity of ordered) await lockEntityTranslations(em, entity);
  const json = entitiesJson(entities);
  const matching =
    'using jsonb_to_recordset(?::jsonb) as e(t text, i text) where x.entity_type = e.t and x.entity_id = e.i';
  const purge = async (
    table: 'source_contents' | 'content_translations' | 'content_deletions' | 'content_reports',
  ) => (await executeBound(em, `delete from ${table} x ${matching}`, [json], 'run')).affectedRows;
  return {
    sources: await purge('source_contents'),
    translations: await purge('content_translations'),
    tombstones: await purge('content_deletions'),
    reports: await purge('content_reports'),
  };
}
