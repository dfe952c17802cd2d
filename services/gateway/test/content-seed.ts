import { hash, randomUUID } from 'node:crypto';

import { ContentTranslation, SourceContent, type Orm } from '@tp/db';

const sha = (text: string) => hash('sha256', text, 'hex');

/** Source fields of one entity, as the planner leaves them in source_contents. */
export async function seedSource(
  orm: Orm,
  entity: { module?: string; type: string; id: string; sourceLang?: string; sourceVersion?: number },
  fields: Record<string, string>,
): Promise<void> {
  const em = orm.em.fork();
  for (const [field, text] of Object.entries(fields)) {
    em.create(SourceContent, {
      module: entity.module ?? 'catalog',
      entityType: entity.type,
      entityId: entity.id,
      field,
      sourceLang: entity.sourceLang ?? 'zh-CN',
      text,
      sourceHash: sha(text),
      sourceVersion: entity.sourceVersion ?? 1,
    });
  }
  await em.flush();
}

/**
 * A stored machine translation, as the projection leaves it; `of` is the source text it was made
 * from (an older one makes it outdated).
 */
export async function seedTranslation(
  orm: Orm,
  at: { type: string; id: string; field: string; lang: string },
  text: string,
  of: string,
): Promise<void> {
  await orm.em.fork().upsert(
    ContentTranslation,
    {
      entityType: at.type,
      entityId: at.id,
      field: at.field,
      targetLang: at.lang,
      sourceLang: 'zh-CN',
      translatedText: text,
      sourceHash: sha(of),
      sourceVersion: 1,
      engine: 'test',
      lastEventId: randomUUID(),
    },
    { onConflictFields: ['entityType', 'entityId', 'field', 'targetLang'] },
  );
}
