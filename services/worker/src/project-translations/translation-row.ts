import { FREE_TEXT_ENTITY_TYPE, type TranslationCompleted } from '@tp/contracts';
import {
  completedFields,
  CONTENT_COLUMN_CHARS,
  PermanentError,
  type CompletedField,
  type TranslationWrite,
} from '@tp/pipeline';
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
 * The rows a TranslationCompleted stores, one per result it carries (v5: several fields of one
 * entity in one language; v6: free text, several texts, each its own entity), or a PermanentError
 * naming each result the database could never take (results produced to Kafka directly are checked
 * like any other). Languages become our codes; the source may be `auto` (free text whose language
 * nobody could tell).
 */
export function translationRows(event: TranslationCompleted): TranslationRow[] {
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
  if (data.entityType !== FREE_TEXT_ENTITY_TYPE) {
    // Only free text's results name their own entities: a reported entity's results are the
    // entity's own, under its locks and its read cache (a result elsewhere would skip both).
    data.moreResults.forEach(({ entityId }, i) => {
      if (entityId !== null && entityId !== data.entityId)
        problems.push(
          `moreResults.${i}.entityId: only free text (entityType ${FREE_TEXT_ENTITY_TYPE}) results name their own entity`,
        );
    });
  }
  const results = completedFields(data);
  results.forEach((result, i) => {
    const at = i === 0 ? '' : `moreResults.${i - 1}.`;
    problems.push(...resultProblems(result).map((problem) => at + problem));
  });
  if (!UUID.test(event.eventId)) problems.push(`eventId: ${JSON.stringify(event.eventId)} is not a UUID`);
  if (problems.length > 0) throw new PermanentError('RESULT_INVALID', problems.join('; '));
  return results.map((result) => ({
    entityType: result.entityType,
    entityId: result.entityId,
    field: result.field,
    targetLang,
    sourceLang,
    translatedText: result.translatedText,
    sourceHash: result.sourceHash,
    sourceVersion: result.sourceVersion,
    requestedAt: Number.isSafeInteger(result.requestedAt) && result.requestedAt > 0 ? result.requestedAt : 0,
    engine: result.engine,
    truncated: result.truncated,
    fallback: result.fallback,
    lastEventId: event.eventId,
  }));
}

/** What the database could never take of one result. */
function resultProblems(result: CompletedField): string[] {
  const problems: string[] = [];
  for (const name of ['entityType', 'entityId', 'field', 'sourceHash', 'engine'] as const) {
    const value = result[name];
    if (value.trim() === '') problems.push(`${name}: empty`);
    else if (codePoints(value) > CONTENT_COLUMN_CHARS[name])
      problems.push(`${name}: longer than ${CONTENT_COLUMN_CHARS[name]} characters`);
    if (value.includes('\u0000')) problems.push(`${name}: contains U+0000`);
  }
  if (result.translatedText.includes('\u0000')) problems.push('translatedText: contains U+0000');
  if (!Number.isSafeInteger(result.sourceVersion) || result.sourceVersion < 0) {
    problems.push(`sourceVersion: ${result.sourceVersion} is not a non-negative integer`);
  }
  return problems;
}
