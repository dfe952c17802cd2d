import { executeBound } from '@tp/db';

import type { StoredField } from '../content/stored-field.js';
import type { BackfillCursor, BackfillScope } from './backfills.js';
import type { Em } from './em.js';
import { storedFieldOf, type SourceFieldRow } from './source-rows.js';

// The backfill's reads of source_contents and content_translations: the fields of its scope that lack
// its language, in (entity_type, entity_id, field) order (the unique index of source_contents; the
// translation is looked up by the unique index of content_translations).

/**
 * The fields of the scope that lack the language, with `s` the source_contents row; with a
 * `sources_before`, not those the planner requested after it (they are on their way already).
 */
const LACKING =
  'from source_contents s where s.source_lang <> ? ' +
  'and (?::text is null or s.module = ?) and (?::text is null or s.entity_type = ?) ' +
  'and (?::timestamptz is null or s.planned_at is null or s.planned_at <= ?) ' +
  'and not exists (select 1 from content_translations t where t.entity_type = s.entity_type ' +
  'and t.entity_id = s.entity_id and t.field = s.field and t.target_lang = ?)';

/** Which fields a backfill still has to see: its scope, and when it was created. */
export interface LackingScope extends BackfillScope {
  readonly sourcesBefore: Date | null;
}

const lackingParams = (scope: LackingScope) => [
  scope.language,
  scope.module,
  scope.module,
  scope.entityType,
  scope.entityType,
  scope.sourcesBefore,
  scope.sourcesBefore,
  scope.language,
];

/** Whether anything is stored under the scope's module and entity type (whatever its languages). */
export async function scopeHasContent(em: Em, scope: BackfillScope): Promise<boolean> {
  const [row] = await executeBound<{ found: boolean }>(
    em,
    'select exists (select 1 from source_contents s where (?::text is null or s.module = ?) ' +
      'and (?::text is null or s.entity_type = ?)) as found',
    [scope.module, scope.module, scope.entityType, scope.entityType],
    'all',
  );
  return row?.found === true;
}

/** Fields of the scope lacking the language: all of them, and those up to the cursor (requested). */
export async function countLackingFields(
  em: Em,
  scope: LackingScope,
  cursor: BackfillCursor,
): Promise<{ lacking: number; requestedLacking: number }> {
  const [row] = await executeBound<{ lacking: string; requested_lacking: string }>(
    em,
    'select count(*) as lacking, count(*) filter (where (s.entity_type, s.entity_id) <= (?, ?)) ' +
      `as requested_lacking ${LACKING}`,
    [cursor.entityType, cursor.entityId, ...lackingParams(scope)],
    'all',
  );
  return { lacking: Number(row?.lacking ?? 0), requestedLacking: Number(row?.requested_lacking ?? 0) };
}

type LackingRow = SourceFieldRow;

/**
 * The lacking fields of the entities after the cursor, whole entities only, at most `maxFields` of
 * them: one row more is read to see whether the last entity is whole, and the entity of that row is
 * left for next time, unless it is the only one (then all of its lacking fields come).
 */
export async function nextLackingFields(
  em: Em,
  scope: LackingScope,
  cursor: BackfillCursor,
  maxFields: number,
): Promise<StoredField[]> {
  const rows = await selectLacking(em, scope, cursor, maxFields + 1);
  if (rows.length <= maxFields) return rows.map(storedFieldOf);
  const cut = rows[rows.length - 1] as LackingRow;
  const whole = rows.filter((r) => r.entity_type !== cut.entity_type || r.entity_id !== cut.entity_id);
  if (whole.length > 0) return whole.map(storedFieldOf);
  const entity = { ...scope, entityType: cut.entity_type };
  const all = await selectLacking(em, entity, cursor, Number.MAX_SAFE_INTEGER, cut.entity_id);
  return all.map(storedFieldOf);
}

function selectLacking(
  em: Em,
  scope: LackingScope,
  cursor: BackfillCursor,
  limit: number,
  onlyEntityId?: string,
): Promise<LackingRow[]> {
  return executeBound<LackingRow>(
    em,
    'select s.module, s.entity_type, s.entity_id, s.field, s.source_lang, s.text, s.source_hash, ' +
      `s.source_version, s.format ${LACKING} and (s.entity_type, s.entity_id) > (?, ?) ` +
      'and (?::text is null or s.entity_id = ?) order by s.entity_type, s.entity_id, s.field limit ?',
    [
      ...lackingParams(scope),
      cursor.entityType,
      cursor.entityId,
      onlyEntityId ?? null,
      onlyEntityId ?? null,
      Math.min(limit, 2 ** 31 - 1),
    ],
    'all',
  );
}
