import type { Orm } from '@tp/db';

import type { TranslatedField, TranslationMeta } from './merge-content.js';

interface FieldRecord {
  readonly entity_id: string;
  readonly module: string;
  readonly field: string;
  readonly source_lang: string;
  readonly text: string;
  readonly source_hash: string;
  /** bigint, which the driver returns as a string. */
  readonly source_version: string | number;
  readonly target_lang: string | null;
  readonly translated_text: string | null;
  readonly origin: 'machine' | 'human' | null;
  readonly engine: string | null;
  readonly stale: boolean | null;
  readonly truncated: boolean | null;
  readonly fallback: boolean | null;
}

type Field = TranslatedField & {
  translations: Map<string, string>;
  meta: Map<string, TranslationMeta>;
};

/** Source contents and their translations, read for the query side. */
export class ContentStore {
  constructor(private readonly orm: Orm) {}

  /**
   * The source fields of the entities `ids` of one type, each with its translations into `languages`
   * made from its current text (same source hash), and its human ones whatever text they were made
   * from (an older one makes them stale), in one query however many entities are read.
   * Entities without source content are absent from the map. Plain SQL: this is the read path.
   */
  async fields(
    type: string,
    ids: readonly string[],
    languages: readonly string[],
  ): Promise<Map<string, TranslatedField[]>> {
    const byEntity = new Map<string, TranslatedField[]>();
    if (ids.length === 0) return byEntity;
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
    const rows = await this.orm.em.getConnection().execute<FieldRecord[]>(
      `select s.entity_id, s.module, s.field, s.source_lang, s.text, s.source_hash, s.source_version, ${translation}
         from source_contents s ${join}
        where s.entity_type = ? and s.entity_id in (?)`,
      languages.length > 0 ? [languages, type, ids] : [type, ids],
    );
    const byField = new Map<string, Field>();
    for (const row of rows) {
      const key = `${row.entity_id}\u0000${row.field}`;
      let field = byField.get(key);
      if (!field) {
        field = {
          entityType: type,
          entityId: row.entity_id,
          module: row.module,
          field: row.field,
          sourceLang: row.source_lang,
          text: row.text,
          sourceHash: row.source_hash,
          sourceVersion: Number(row.source_version),
          translations: new Map(),
          meta: new Map(),
        };
        byField.set(key, field);
        const list = byEntity.get(row.entity_id);
        if (list) list.push(field);
        else byEntity.set(row.entity_id, [field]);
      }
      if (row.target_lang !== null && row.translated_text !== null) {
        field.translations.set(row.target_lang, row.translated_text);
        const human = row.origin === 'human';
        field.meta.set(row.target_lang, {
          origin: human ? 'human' : 'machine',
          engine: human ? null : row.engine,
          stale: row.stale === true,
          truncated: row.truncated === true,
          fallback: row.fallback === true,
        });
      }
    }
    return byEntity;
  }
}
