import { executeBound } from '@tp/db';

import type { StoredField } from '../content/stored-field.js';
import type { Em, EntityAddress } from './em.js';
import {
  storedFieldOf,
  storedSource,
  type SourceFieldRow,
  type SourceStateRow,
  type StoredSource,
} from './source-rows.js';

/** One source field of an entity with one of its translations (or none), as the read side reads it. */
export interface FieldTranslationRow {
  readonly entity_id: string;
  readonly module: string;
  readonly field: string;
  readonly source_lang: string;
  readonly text: string;
  readonly source_hash: string;
  readonly format: string;
  /** bigint, which the driver returns as a string. */
  readonly source_version: string | number;
  readonly target_lang: string | null;
  readonly translated_text: string | null;
  readonly origin: 'machine' | 'human' | null;
  readonly engine: string | null;
  /** A human translation made from an older text, or any translation of another text than the current. */
  readonly stale: boolean | null;
  readonly truncated: boolean | null;
  readonly fallback: boolean | null;
}

/**
 * The source fields of the entities `ids` of one type, each with its translations into `languages`
 * made from its current text (same source hash), and its human ones whatever text they were made from
 * (an older one makes them stale), in one query however many entities are read. Entities without
 * source content have no rows. Plain SQL: this is the read path.
 */
export async function readFieldTranslations(
  em: Em,
  type: string,
  ids: readonly string[],
  languages: readonly string[],
): Promise<FieldTranslationRow[]> {
  if (ids.length === 0) return [];
  const join =
    languages.length > 0
      ? `left join content_translations t
           on t.entity_type = s.entity_type and t.entity_id = s.entity_id and t.field = s.field
          and (t.source_hash = s.source_hash or t.origin = 'human') and t.target_lang in (?)`
      : '';
  const translation =
    languages.length > 0
      ? `t.target_lang, t.translated_text, t.origin, t.engine, t.truncated, t.fallback,
         (t.stale or t.source_hash <> s.source_hash) as stale`
      : 'null as target_lang, null as translated_text, null as origin, null as engine, null as stale, null as truncated, null as fallback';
  return em.getConnection().execute<FieldTranslationRow[]>(
    `select s.entity_id, s.module, s.field, s.source_lang, s.text, s.source_hash, s.source_version, s.format, ${translation}
       from source_contents s ${join}
      where s.entity_type = ? and s.entity_id in (?)`,
    languages.length > 0 ? [languages, type, ids] : [type, ids],
  );
}

/**
 * The entity's stored source fields (without their text), held (FOR SHARE) until the transaction
 * ends, so the planner cannot change them while an editor's translations of them are written.
 */
export async function shareSources(em: Em, entity: EntityAddress): Promise<StoredSource[]> {
  const rows = await executeBound<SourceStateRow>(
    em,
    'select module, field, source_lang, source_hash, source_version, format from source_contents ' +
      'where entity_type = ? and entity_id = ? order by field for share',
    [entity.entityType, entity.entityId],
    'all',
  );
  return rows.map(storedSource);
}

/** A stored field whose machine translation into a pair's target was made from its current text. */
export interface TranslatedSource extends StoredField {
  /** content_translations.id, the keyset of machineTranslatedSources. */
  readonly translationId: string;
}

/**
 * Up to `limit` fields with a machine translation from `sourceLang` into `targetLang` made from their
 * current source text, after translation id `after` (keyset by id).
 */
export async function machineTranslatedSources(
  em: Em,
  pair: { readonly sourceLang: string; readonly targetLang: string },
  after: string,
  limit: number,
): Promise<TranslatedSource[]> {
  const rows = await em.getConnection().execute<(SourceFieldRow & { id: string })[]>(
    `select t.id, s.module, s.entity_type, s.entity_id, s.field, s.source_lang, s.text, s.source_hash,
            s.source_version, s.format
       from content_translations t
       join source_contents s
         on s.entity_type = t.entity_type and s.entity_id = t.entity_id and s.field = t.field
      where t.source_lang = ? and t.target_lang = ? and t.origin = 'machine'
        and t.source_hash = s.source_hash and t.id > ?
      order by t.id
      limit ?`,
    [pair.sourceLang, pair.targetLang, after, limit],
  );
  return rows.map((row) => ({ translationId: String(row.id), ...storedFieldOf(row) }));
}
