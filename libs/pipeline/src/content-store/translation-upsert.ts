import { executeBound } from '@tp/db';

import type { Em } from './em.js';

/** Who wrote a stored translation: the projection (`machine`) or an editor (`human`). */
export type TranslationOrigin = 'machine' | 'human';

/** One content_translations row as it is written, by the projection or by an editor. */
export interface TranslationWrite {
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  readonly targetLang: string;
  readonly sourceLang: string;
  readonly translatedText: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** Epoch ms of the request it answers (a machine result), or of the edit. */
  readonly requestedAt: number;
  readonly engine: string;
  readonly truncated: boolean;
  /** A weaker engine's result (TranslationCompleted v4). */
  readonly fallback: boolean;
  /** The event applied (a machine result) or an id of the edit. */
  readonly eventId: string;
  readonly origin: TranslationOrigin;
  /** The API key of an editor; null for a machine result. */
  readonly writtenBy: string | null;
}

/** The unique key of a stored translation. */
export interface TranslationKey {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly field: string;
  readonly target_lang: string;
}

const VALUE_COLUMNS =
  'entity_type, entity_id, field, target_lang, source_lang, translated_text, source_hash, source_version, ' +
  'requested_at, engine, truncated, fallback, last_event_id, origin, written_by';

// The rows as one array per column (15 parameters whatever the batch size), unnested in order: the
// statement's text is the same for every batch, so Postgres parses and plans a few lines instead of a
// VALUES list of 15 expressions per row. Bound parameters (executeBound); each array typed by its cast.
const INSERT =
  `insert into content_translations as t (${VALUE_COLUMNS}, stale, created_at, updated_at) ` +
  `select ${VALUE_COLUMNS}, false, now(), now() from unnest(` +
  '?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ' +
  '?::text[], ?::boolean[], ?::boolean[], ?::uuid[], ?::text[], ?::uuid[]) ' +
  `with ordinality as v (${VALUE_COLUMNS}, n)`;

/** A deleted entity stays deleted: a row of the version it was deleted at, or older, writes nothing. */
export const NOT_DELETED =
  ' where not exists (select 1 from content_deletions d where ' +
  'd.entity_type = v.entity_type and d.entity_id = v.entity_id and d.deleted_version >= v.source_version) ' +
  'order by v.n';

/**
 * When a machine result may replace the stored row (`t`), `excluded` the result:
 * - an older source version never overwrites a newer one; of the same version, only a result of a
 *   later request does (a retranslation), so a redelivered, replayed or late result writes nothing;
 * - a human translation is replaced only by a result of a newer source version (its text changed),
 *   and never in a language the configuration lists as human-only;
 * - of the same source version, a weaker machine result never replaces a stronger one. Weakness is
 *   2 x truncated + fallback (part of the text missing is worse than a weaker engine).
 */
export const MACHINE_MAY_REPLACE =
  '(t.source_version, t.requested_at) < (excluded.source_version, excluded.requested_at) and ' +
  '(t.source_version < excluded.source_version or ' +
  "(t.origin = 'machine' and " +
  '2 * excluded.truncated::int + excluded.fallback::int <= 2 * t.truncated::int + t.fallback::int)) ' +
  "and not (t.origin = 'human' and t.target_lang = any(" +
  'coalesce((select c.human_only_languages from translation_config c where c.id = 1), ' +
  "'{}'::text[])))";

/** A human edit wins for its source version: it replaces any row of that version or an older one. */
export const HUMAN_MAY_REPLACE = 't.source_version <= excluded.source_version';

const UPSERT =
  ' on conflict (entity_type, entity_id, field, target_lang) do update set source_lang = excluded.source_lang, ' +
  'translated_text = excluded.translated_text, source_hash = excluded.source_hash, ' +
  'source_version = excluded.source_version, requested_at = excluded.requested_at, engine = excluded.engine, ' +
  'truncated = excluded.truncated, fallback = excluded.fallback, last_event_id = excluded.last_event_id, ' +
  'origin = excluded.origin, written_by = excluded.written_by, stale = false, updated_at = excluded.updated_at ' +
  `where case when excluded.origin = 'human' then ${HUMAN_MAY_REPLACE} else ${MACHINE_MAY_REPLACE} end ` +
  'returning t.entity_type, t.entity_id, t.field, t.target_lang';

/**
 * The one write path of content_translations: machine results and human edits, in one statement,
 * under the rules above (a human edit wins for its source version; an older version never overwrites
 * a newer one; a deleted entity stays deleted). Rows must have distinct keys (ON CONFLICT touches a
 * row once per statement). Answers the keys written. The caller holds the entities' locks that
 * order it against a deletion (entity-locks.ts) or their source rows.
 */
export async function upsertTranslations(
  em: Em,
  rows: readonly TranslationWrite[],
): Promise<TranslationKey[]> {
  if (rows.length === 0) return [];
  const columns: unknown[][] = Array.from({ length: 15 }, () => []);
  for (const r of rows) {
    const values = [
      r.entityType,
      r.entityId,
      r.field,
      r.targetLang,
      r.sourceLang,
      r.translatedText,
      r.sourceHash,
      r.sourceVersion,
      r.requestedAt,
      r.engine,
      r.truncated,
      r.fallback,
      r.eventId,
      r.origin,
      r.writtenBy,
    ];
    values.forEach((value, column) => columns[column]?.push(value));
  }
  return executeBound<TranslationKey>(em, INSERT + NOT_DELETED + UPSERT, columns, 'all');
}
