import { executeBound } from '@tp/db';

import type { StoredField } from '../content/stored-field.js';
import { entitiesJson, entityKey, type Em, type EntityAddress } from './em.js';
import { lockEntityTranslations } from './entity-locks.js';

// The planner's statements on source_contents, content_deletions and the human rows of
// content_translations: each reads or writes the rows of many entities in one statement, so a batch of
// changes costs a fixed number of round trips (one entity is a batch of one). Plain SQL: through the
// unit of work (hydration, change sets) the planner spent about 3.5 ms of CPU per message.

/** What the planner knows of one stored field: its source_contents row without the text. */
export type StoredSource = Pick<
  StoredField,
  'module' | 'field' | 'sourceLang' | 'sourceHash' | 'sourceVersion' | 'format'
>;

/** A source_contents row to write for a field of an entity. */
export interface SourceRowWrite {
  readonly field: string;
  readonly text: string;
  readonly sourceLang: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** text, html or markdown. */
  readonly format: string;
  /** The planner requests its translations in this transaction (sets `planned_at`). */
  readonly requested?: boolean;
}

/** The rows to write for one entity of a module. */
export interface EntitySourceWrites extends EntityAddress {
  readonly module: string;
  readonly writes: readonly SourceRowWrite[];
}

/** A source_contents row as the statements below select it (bigint versions come as strings). */
export interface SourceStateRow {
  readonly module: string;
  readonly field: string;
  readonly source_lang: string;
  readonly source_hash: string;
  readonly source_version: string;
  readonly format: string;
}

/** A whole source_contents row of an entity as selected (bigint versions come as strings). */
export interface SourceFieldRow extends SourceStateRow {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly text: string;
}

/** A selected whole row as every producer of translation requests reads it. */
export const storedFieldOf = (r: SourceFieldRow): StoredField => ({
  module: r.module,
  entityType: r.entity_type,
  entityId: r.entity_id,
  field: r.field,
  sourceLang: r.source_lang,
  text: r.text,
  sourceHash: r.source_hash,
  sourceVersion: Number(r.source_version),
  format: r.format,
});

/** A selected row as the planner and the editors read it. */
export const storedSource = (r: SourceStateRow): StoredSource => ({
  module: r.module,
  field: r.field,
  sourceLang: r.source_lang,
  sourceHash: r.source_hash,
  sourceVersion: Number(r.source_version),
  format: r.format,
});

/** The stored fields of every entity (by entityKey), locked until the transaction ends, in key order. */
export async function lockSources(
  em: Em,
  entities: readonly EntityAddress[],
): Promise<Map<string, StoredSource[]>> {
  const rows = await executeBound<SourceStateRow & { entity_type: string; entity_id: string }>(
    em,
    'select s.entity_type, s.entity_id, s.module, s.field, s.source_lang, s.source_hash, s.source_version, s.format ' +
      'from source_contents s where (s.entity_type, s.entity_id) in ' +
      '(select e.t, e.i from jsonb_to_recordset(?::jsonb) as e(t text, i text)) ' +
      'order by s.entity_type, s.entity_id, s.field for update of s',
    [entitiesJson(entities)],
    'all',
  );
  const stored = new Map<string, StoredSource[]>();
  for (const r of rows) {
    const key = entityKey({ entityType: r.entity_type, entityId: r.entity_id });
    stored.set(key, [...(stored.get(key) ?? []), storedSource(r)]);
  }
  return stored;
}

/**
 * The module owning each entity type (undefined when the type is new). New types are claimed under a
 * transaction-scoped advisory lock each (re-read once held), so two modules reporting the same new
 * type at once cannot both become its owner. Known types take no lock: their rows name the owner.
 */
export async function lockTypeOwners(
  em: Em,
  types: readonly string[],
): Promise<Map<string, string | undefined>> {
  const owners = new Map<string, string | undefined>();
  if (types.length === 0) return owners;
  const ownersOf = async (list: readonly string[]) => {
    const rows = await executeBound<{ entity_type: string; module: string | null }>(
      em,
      'select t.entity_type, (select s.module from source_contents s where s.entity_type = t.entity_type limit 1) ' +
        'as module from jsonb_array_elements_text(?::jsonb) as t(entity_type)',
      [JSON.stringify(list)],
      'all',
    );
    for (const r of rows) owners.set(r.entity_type, r.module ?? undefined);
  };
  await ownersOf(types);
  const unowned = types.filter((t) => owners.get(t) === undefined).sort();
  if (unowned.length === 0) return owners;
  await executeBound(
    em,
    'select pg_advisory_xact_lock(hashtextextended(k, 0)) from jsonb_array_elements_text(?::jsonb) as k',
    [JSON.stringify(unowned.map((t) => `source_contents.entity_type:${t}`))],
    'all',
  );
  await ownersOf(unowned);
  return owners;
}

/** The module that owns `entityType` (the module of any stored row of it), without a lock. */
export async function typeOwner(em: Em, entityType: string): Promise<string | undefined> {
  const [owner] = await executeBound<{ module: string }>(
    em,
    'select module from source_contents where entity_type = ? limit 1',
    [entityType],
    'all',
  );
  return owner?.module;
}

/** The tombstone version of each deleted entity among them (by entityKey). */
export async function deletedVersions(
  em: Em,
  entities: readonly EntityAddress[],
): Promise<Map<string, number>> {
  const rows = await executeBound<{ entity_type: string; entity_id: string; deleted_version: string }>(
    em,
    'select d.entity_type, d.entity_id, d.deleted_version from content_deletions d ' +
      'join jsonb_to_recordset(?::jsonb) as e(t text, i text) on d.entity_type = e.t and d.entity_id = e.i',
    [entitiesJson(entities)],
    'all',
  );
  return new Map(
    rows.map((r) => [
      entityKey({ entityType: r.entity_type, entityId: r.entity_id }),
      Number(r.deleted_version),
    ]),
  );
}

/** The languages each field of each entity (by entityKey) has a human translation in. */
export async function humanTranslationLanguages(
  em: Em,
  entities: readonly EntityAddress[],
): Promise<Map<string, Map<string, Set<string>>>> {
  const rows = await executeBound<{
    entity_type: string;
    entity_id: string;
    field: string;
    target_lang: string;
  }>(
    em,
    'select t.entity_type, t.entity_id, t.field, t.target_lang from content_translations t ' +
      'join jsonb_to_recordset(?::jsonb) as e(t text, i text) on t.entity_type = e.t and t.entity_id = e.i ' +
      "where t.origin = 'human'",
    [entitiesJson(entities)],
    'all',
  );
  const byEntity = new Map<string, Map<string, Set<string>>>();
  for (const r of rows) {
    const key = entityKey({ entityType: r.entity_type, entityId: r.entity_id });
    const byField = byEntity.get(key) ?? new Map<string, Set<string>>();
    byField.set(r.field, (byField.get(r.field) ?? new Set()).add(r.target_lang));
    byEntity.set(key, byField);
  }
  return byEntity;
}

/**
 * Inserts new fields and updates changed ones, for many entities in one statement: the rows as one
 * bound array per column, unnested in order. The conflict clause also covers a field another consumer
 * inserted after the lock was taken (a rebalance): the newer version wins.
 */
export async function writeSources(em: Em, changes: readonly EntitySourceWrites[]): Promise<void> {
  const columns: unknown[][] = Array.from({ length: 10 }, () => []);
  for (const { module, entityType, entityId, writes } of changes) {
    for (const w of writes) {
      const values = [
        module,
        entityType,
        entityId,
        w.field,
        w.sourceLang,
        w.text,
        w.sourceHash,
        w.sourceVersion,
        w.format,
        w.requested === true,
      ];
      values.forEach((value, column) => columns[column]?.push(value));
    }
  }
  if (columns[0]?.length === 0) return;
  await executeBound(
    em,
    'insert into source_contents as s (module, entity_type, entity_id, field, source_lang, text, source_hash, ' +
      'source_version, format, planned_at, updated_at) select w.module, w.entity_type, w.entity_id, w.field, ' +
      'w.source_lang, w.text, w.source_hash, w.source_version, w.format, case when w.requested then now() end, ' +
      'now() from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ' +
      '?::bigint[], ?::text[], ?::boolean[]) with ordinality as w (module, entity_type, entity_id, field, ' +
      'source_lang, text, source_hash, source_version, format, requested, n) order by w.n' +
      ' on conflict (entity_type, entity_id, field) do update set source_lang = excluded.source_lang, ' +
      'text = excluded.text, source_hash = excluded.source_hash, source_version = excluded.source_version, ' +
      'format = excluded.format, planned_at = coalesce(excluded.planned_at, s.planned_at), ' +
      'updated_at = excluded.updated_at where s.source_version <= excluded.source_version',
    columns,
    'run',
  );
}

/**
 * Human translations of a field whose text changed are kept (and still served) but marked stale; the
 * machine translation of the new text, when one is requested, replaces them.
 */
export async function markHumanTranslationsStale(
  em: Em,
  changes: readonly EntitySourceWrites[],
): Promise<void> {
  const params: unknown[] = [];
  for (const { entityType, entityId, writes } of changes) {
    for (const w of writes) params.push(entityType, entityId, w.field, w.sourceHash);
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

/**
 * Removes source fields of the entity (all of them when `fields` is undefined) with every stored
 * translation of them, under the entity's translation lock (entity-locks.ts).
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
  await em.execute(
    `delete from source_contents where entity_type = ? and entity_id = ?${only}`,
    params,
    'run',
  );
  await em.execute(
    `delete from content_translations where entity_type = ? and entity_id = ?${only}`,
    params,
    'run',
  );
}

/**
 * The tombstone of a deleted entity: its version never goes down, so a change or a result of that
 * version or older writes nothing afterwards.
 */
export async function recordDeletion(
  em: Em,
  deletion: EntityAddress & { readonly module: string; readonly deletedVersion: number },
): Promise<void> {
  await em.execute(
    'insert into content_deletions as d (entity_type, entity_id, module, deleted_version, deleted_at) ' +
      'values (?, ?, ?, ?, now()) on conflict (entity_type, entity_id) do update set ' +
      'module = excluded.module, deleted_at = excluded.deleted_at, ' +
      'deleted_version = greatest(d.deleted_version, excluded.deleted_version)',
    [deletion.entityType, deletion.entityId, deletion.module, deletion.deletedVersion],
    'run',
  );
}
