import { FREE_TEXT_ENTITY_TYPE } from '@tp/contracts';

import type { Em } from './em.js';

// Rows that are deleted by age, at most `batch` of the oldest per statement, so no run holds a long
// lock or a large transaction. Each function answers how many rows one statement deleted; callers
// repeat it until fewer than `batch` went.

/** Stored translations of anonymous free text (entity type `text`) last updated before `cutoff`. */
export async function expireFreeTextTranslations(em: Em, cutoff: Date, batch: number): Promise<number> {
  return deleted(
    em,
    'delete from content_translations where id in (select id from content_translations ' +
      `where entity_type = ? and updated_at < ? limit ${Math.trunc(batch)})`,
    [FREE_TEXT_ENTITY_TYPE, cutoff],
  );
}

/** Tombstones (content_deletions) of deletions before `cutoff`, oldest first (index on deleted_at). */
export async function pruneTombstones(em: Em, cutoff: Date, batch: number): Promise<number> {
  return deleted(
    em,
    'delete from content_deletions where (entity_type, entity_id) in (select entity_type, entity_id ' +
      `from content_deletions where deleted_at < ? order by deleted_at limit ${Math.trunc(batch)})`,
    [cutoff],
  );
}

/** Tracking rows (content_reports) of reports accepted before `cutoff`, oldest first (index on accepted_at). */
export async function pruneReports(em: Em, cutoff: Date, batch: number): Promise<number> {
  return deleted(
    em,
    'delete from content_reports where tracking_id in (select tracking_id from content_reports ' +
      `where accepted_at < ? order by accepted_at limit ${Math.trunc(batch)})`,
    [cutoff],
  );
}

async function deleted(em: Em, sql: string, params: readonly unknown[]): Promise<number> {
  const result = await em.getConnection().execute<{ affectedRows?: number }>(sql, [...params], 'run');
  return Number(result.affectedRows ?? 0);
}
