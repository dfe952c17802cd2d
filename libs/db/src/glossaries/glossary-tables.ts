import type { Orm } from '../orm.js';

// The one owner of the SQL of glossaries and glossary_deletions (docs/decisions.md, "One owner per
// table"): the gateway writes them (the admin API, through the Glossary entities and nextGlossaryVersion),
// the translator reads them (the directory, the DeepL sweep).

type Em = Orm['em'];

/** One glossary's identity: its id, pair and version, without its entries. */
export interface GlossaryVersionRow {
  readonly id: string;
  readonly name: string;
  readonly source_lang: string;
  readonly target_lang: string;
  /** bigint, which the driver returns as a string. */
  readonly version: string;
}

/** Every glossary's id, name, pair and version (one small row a glossary). */
export function glossaryVersions(em: Em): Promise<GlossaryVersionRow[]> {
  return em
    .getConnection()
    .execute<GlossaryVersionRow[]>('select id, name, source_lang, target_lang, version from glossaries');
}

/** A glossary's entries and version, or undefined when it is gone. */
export async function glossaryEntries(
  em: Em,
  id: string,
): Promise<{ readonly entries: { source: string; target: string }[]; readonly version: number } | undefined> {
  const [row] = await em
    .getConnection()
    .execute<{ entries: { source: string; target: string }[]; version: string }[]>(
      'select entries, version from glossaries where id = ?',
      [id],
    );
  return row && { entries: row.entries, version: Number(row.version) };
}

/**
 * The time in milliseconds, or one more than the largest version if that is later: a pair's version
 * never repeats, even after a delete and a create, so a cache key made with it cannot be stale.
 */
export async function nextGlossaryVersion(em: Em): Promise<number> {
  const rows = await em
    .getConnection()
    .execute<{ version: string }[]>(
      `select greatest((extract(epoch from clock_timestamp()) * 1000)::bigint, coalesce(max(version), 0) + 1) as version from glossaries`,
    );
  return Number(rows[0]?.version);
}

/** The oldest recorded glossary deletions; `settled` once older than `settleMs`. */
export function oldestGlossaryDeletions(
  em: Em,
  settleMs: number,
  limit: number,
): Promise<{ glossary_id: string; settled: boolean }[]> {
  return em.getConnection().execute<{ glossary_id: string; settled: boolean }[]>(
    `select glossary_id, deleted_at < now() - make_interval(secs => ?) as settled
     from glossary_deletions order by deleted_at, glossary_id limit ?`,
    [settleMs / 1000, limit],
  );
}

/** Forgets recorded deletions that are done with. */
export async function forgetGlossaryDeletions(em: Em, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await em.getConnection().execute('delete from glossary_deletions where glossary_id in (?)', [[...ids]]);
}
