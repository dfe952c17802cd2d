import type { Orm } from '@tp/db';
import { readFieldTranslations } from '@tp/pipeline';

import type { TranslatedField, TranslationMeta } from './merge-content.js';

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
   * Entities without source content are absent from the map (the content store's read).
   */
  async fields(
    type: string,
    ids: readonly string[],
    languages: readonly string[],
  ): Promise<Map<string, TranslatedField[]>> {
    const byEntity = new Map<string, TranslatedField[]>();
    const rows = await readFieldTranslations(this.orm.em.fork(), type, ids, languages);
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
          format: row.format,
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
