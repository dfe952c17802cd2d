import type { ContentChangedData } from '@tp/contracts';
import { executeBound, type Orm } from '@tp/db';

import { lockEntityTranslations } from '../shared/entity-lock.js';

import type { SourceWrite, StoredFieldState, TranslationSettings } from './plan-translations.js';

// Plain SQL for the source rows and the outbox rows (insertIntoOutbox): through the unit of work
// (hydration, change sets) the planner spent about 3.5 ms of CPU per message (profiled), most of it
// there.
export type Em = Orm['em'];

export interface EntityAddress {
  readonly entityType: string;
  readonly entityId: string;
}

export async function readSettings(em: Em): Promise<TranslationSettings> {
  const [row] = await em.execute<
    { target_languages: string[]; enabled: boolean; human_only_languages: string[] }[]
  >('select target_languages, enabled, human_only_languages from translation_config where id = 1');
  if (!row) throw new Error('translation_config has no row 1; run the migrations');
  return {
    targetLanguages: row.target_languages,
    enabled: row.enabled,
    humanOnlyLanguages: row.human_only_languages,
  };
}

/** The entity's stored fields, locked until the transaction ends. */
export async function lockEntity(em: Em, change: EntityAddress): Promise<StoredFieldState[]> {
  const rows = await em.execute<
    { module: string; field: string; source_lang: string; source_hash: string; source_version: string }[]
  >(
    'select module, field, source_lang, source_hash, source_version from source_contents ' +
      'where entity_type = ? and entity_id = ? for update',
    [change.entityType, change.entityId],
  );
  return rows.map((r) => ({
    module: r.module,
    field: r.field,
    sourceLang: r.source_lang,
    sourceHash: r.source_hash,
    sourceVersion: Number(r.source_version),
  }));
}

/**
 * Inserts new fields and updates changed ones in one statement. The conflict clause also covers a
 * field another consumer inserted after the lock was taken (a rebalance): the newer version wins.
 */
export async function writeSources(
  em: Em,
  change: ContentChangedData,
  writes: readonly SourceWrite[],
): Promise<void> {
  await writeSourcesOf(em, [{ change, writes }]);
}

/** A change with what its plan writes. */
export interface ChangeWrites {
  readonly change: ContentChangedData;
  readonly writes: readonly SourceWrite[];
}

/**
 * writeSources for the changes of several entities, in one statement: the rows as one bound array
 * per column, unnested in order (a VALUES list had Postgres parse and plan every row's expressions;
 * see translation-writer.ts).
 */
export async function writeSourcesOf(em: Em, changes: readonly ChangeWrites[]): Promise<void> {
  const columns: unknown[][] = Array.from({ length: 8 }, () => []);
  for (const { change, writes } of changes) {
    for (const w of writes) {
      const values = [
        change.module,
        change.entityType,
        change.entityId,
        w.field,
        w.sourceLang,
        w.text,
        w.sourceHash,
        w.sourceVersion,
      ];
      values.forEach((value, column) => columns[column]?.push(value));
    }
  }
  if (columns[0]?.length === 0) return;
  await executeBound(
    em,
    'insert into source_contents as s (module, entity_type, entity_id, field, source_lang, text, source_hash, ' +
      'source_version, updated_at) select w.module, w.entity_type, w.entity_id, w.field, w.source_lang, w.text, ' +
      'w.source_hash, w.source_version, now() from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ' +
      '?::text[], ?::text[], ?::bigint[]) with ordinality as w (module, entity_type, entity_id, field, ' +
      'source_lang, text, source_hash, source_version, n) order by w.n' +
      ' on conflict (entity_type, entity_id, field) do update set source_lang = excluded.source_lang, ' +
      'text = excluded.text, source_hash = excluded.source_hash, source_version = excluded.source_version, ' +
      'updated_at = excluded.updated_at where s.source_version <= excluded.source_version',
    columns,
    'run',
  );
}

/**
 * The module owning an entity type, or undefined when the type is new. A new type is claimed under a
 * transaction-scoped advisory lock (re-read once held), so two modules reporting the same new type at
 * once cannot both become its owner. Known types take no lock: their rows already name the owner.
 */
export async function lockTypeOwner(em: Em, entityType: string): Promise<string | undefined> {
  const ownerOf = async () => {
    const rows = await em.execute<{ module: string }[]>(
      'select module from source_contents where entity_type = ? limit 1',
      [entityType],
    );
    return rows[0]?.module;
  };
  const owner = await ownerOf();
  if (owner !== undefined) return owner;
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
    `source_contents.entity_type:${entityType}`,
  ]);
  return ownerOf();
}

/** The version the entity was deleted at (its tombstone), or undefined when it never was. */
export async function readDeletedVersion(em: Em, entity: EntityAddress): Promise<number | undefined> {
  const [row] = await em.execute<{ deleted_version: string }[]>(
    'select deleted_version from content_deletions where entity_type = ? and entity_id = ?',
    [entity.entityType, entity.entityId],
  );
  return row ? Number(row.deleted_version) : undefined;
}

/**
 * Removes source fields of the entity (all of them when `fields` is undefined) with every stored
 * translation of them, under the entity's translation lock (see shared/entity-lock.ts).
 */
export async function removeFields(
  em: Em,
  entity: EntityAddress,
  fields: readonly string[] | undefined,
): Promise<void> {
  await lockEntityTranslations(em, entity);
  // The list travels as JSON: the driver would spread an array parameter.
  const only = fields === undefined ? '' : ' and field in (select jsonb_array_elements_text(?::jsonb))';
  const params = [
    entity.entityType,
    entity.entityId,
    ...(fields === undefined ? [] : [JSON.stringify(fields)]),
  ];
  for (const table of ['source_contents', 'content_translations']) {
    await em.execute(`delete from ${table} where entity_type = ? and entity_id = ?${only}`, params, 'run');
  }
}

/** The languages each field has a human translation in; read only when some language is human-only. */
export async function humanTranslationsOf(
  em: Em,
  change: ContentChangedData,
  settings: TranslationSettings,
): Promise<Map<string, Set<string>> | undefined> {
  if (settings.humanOnlyLanguages.length === 0) return undefined;
  const rows = await em.execute<{ field: string; target_lang: string }[]>(
    "select field, target_lang from content_translations where entity_type = ? and entity_id = ? and origin = 'human'",
    [change.entityType, change.entityId],
  );
  const byField = new Map<string, Set<string>>();
  for (const { field, target_lang } of rows) {
    byField.set(field, (byField.get(field) ?? new Set()).add(target_lang));
  }
  return byField;
}

/**
 * Human translations of a field whose text changed are kept (and still served) but marked stale;
 * the machine translation of the new text, when one is requested, replaces them (issue #19).
 */
export async function markHumanTranslationsStale(
  em: Em,
  change: ContentChangedData,
  writes: readonly SourceWrite[],
): Promise<void> {
  await markHumanTranslationsStaleOf(em, [{ change, writes }]);
}

/** markHumanTranslationsStale for the changes of several entities, in one statement. */
export async function markHumanTranslationsStaleOf(em: Em, changes: readonly ChangeWrites[]): Promise<void> {
  const params: unknown[] = [];
  for (const { change, writes } of changes) {
    for (const w of writes) params.push(change.entityType, change.entityId, w.field, w.sourceHash);
  }
  if (params.length === 0) return;
  await executeBound(
    em,
    'update content_translations t set stale = true from (values ' +
      Array.from({ length: params.length / 4 }, () => '(?, ?, ?, ?)').join(', ') +
      ') as c(entity_type, entity_id, field, source_hash) where t.entity_type = c.entity_type and ' +
      "t.entity_id = c.entity_id and t.field = c.field and t.source_hash <> c.source_hash and t.origin = 'human' " +
      'and not t.stale',
    params,
    'run',
  );
}
