import { randomUUID } from 'node:crypto';

import type { TranslationWrite } from '@tp/pipeline';

/**
 * An editor's translation of vendor `entityId`'s `name` into English at `sourceVersion`, as the
 * gateway's PUT .../translations/{lang} hands it to the content store's upsert.
 */
export function editorTranslation(
  entityId: string,
  sourceVersion: number,
  over: Partial<TranslationWrite> = {},
): TranslationWrite {
  return {
    entityType: 'vendor',
    entityId,
    field: 'name',
    targetLang: 'en',
    sourceLang: 'zh-CN',
    translatedText: 'By hand',
    sourceHash: 'a'.repeat(64),
    sourceVersion,
    requestedAt: Date.now(),
    engine: 'human',
    truncated: false,
    fallback: false,
    eventId: randomUUID(),
    origin: 'human',
    writtenBy: randomUUID(),
    ...over,
  };
}
