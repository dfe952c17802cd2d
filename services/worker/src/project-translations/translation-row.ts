import type { TranslationCompleted } from '@tp/contracts';
import { CONTENT_COLUMN_CHARS, PermanentError, type TranslationWrite } from '@tp/pipeline';
import { codePoints } from '@tp/runtime';
import { normaliseLanguageTag } from '@tp/translation';

/**
 * A content_translations row as the projection writes it: the content store's TranslationWrite of a
 * machine result (requestedAt 0 for events older than v3, fallback false before v4), with the event.
 */
export interface TranslationRow extends Omit<TranslationWrite, 'origin' | 'writtenBy' | 'eventId'> {
  readonly lastEventId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The row's unique key: (entity_type, entity_id, field, target_lang). */
export const rowKey = (row: TranslationRow): string =>
  `${row.entityType}\u0000${row.entityId}\u0000${row.field}\u0000${row.targetLang}`;

/**
 * The row a TranslationCompleted stores, or a PermanentError when the database could never take it
 * (results produced to Kafka directly are checked like any other). Languages become our codes; the
 * source may be `auto` (free text whose language nobody could tell).
 */
export function translationRow(event: TranslationCompleted): TranslationRow {
  const { data } = event;
  const targetLang = normaliseLanguageTag(data.targetLang);
  if (!targetLang) {
    throw new PermanentError(
      'UNSUPPORTED_LANGUAGE',
      `targetLang: unsupported language ${JSON.stringify(data.targetLang)}`,
    );
  }
  const sourceLang = data.sourceLang === 'auto' ? 'auto' : normaliseLanguageTag(data.sourceLang);
  if (!sourceLang) {
    throw new PermanentError(
      'UNSUPPORTED_LANGUAGE',
      `sourceLang: unsupported language ${JSON.stringify(data.sourceLang)}`,
    );
  }
  const problems: string[] = [];
  for (const name of ['entityType', 'entityId', 'field', 'sourceHash', 'engine'] as const) {
    const value = data[name];
    if (value.trim() === '') problems.push(`${name}: empty`);
    else if (codePoints(value) > CONTENT_COLUMN_CHARS[name])
      problems.push(`${name}: longer than ${CONTENT_COLUMN_CHARS[name]} characters`);
    if (value.includes('\u0000')) problems.push(`${name}: contains U+0000`);
  }
  if (data.translatedText.includes('\u0000')) problems.push('translatedText: contains U+0000');
  if (!Number.isSafeInteger(data.sourceVersion) || data.sourceVersion < 0) {
    problems.push(`sourceVersion: ${data.sourceVersion} is not a non-negative integer`);
  }
  if (!UUID.test(event.eventId)) problems.push(`eventId: ${JSON.stringify(event.eventId)} is not a UUID`);
  if (problems.length > 0) throw new PermanentError('RESULT_INVALID', problems.join('; '));
  return {
    entityType: data.entityType,
    entityId: data.entityId,
    field: data.field,
    targetLang,
    sourceLang,
    translatedText: data.translatedText,
    sourceHash: data.sourceHash,
    sourceVersion: data.sourceVersion,
    requestedAt: Number.isSafeInteger(data.requestedAt) && data.requestedAt > 0 ? data.requestedAt : 0,
    engine: data.engine,
    truncated: data.truncated,
    fallback: data.fallback,
    lastEventId: event.eventId,
  };
}
