import { FREE_TEXT_ENTITY_TYPE, type ContentChangedData, type ContentDeletedData } from '@tp/contracts';
import { CONTENT_COLUMN_CHARS, PermanentError } from '@tp/pipeline';
import { codePoints } from '@tp/runtime';
import { normaliseLanguageTag } from '@tp/translation';

/**
 * The change as the planner stores it (source language as our code), or a PermanentError when it can
 * never be stored: retrying a value the database refuses would block the partition forever. Changes
 * produced to Kafka directly skip the gateway's validation, so everything is checked here.
 */
export function checkContentChange(data: ContentChangedData): ContentChangedData {
  const sourceLang = normaliseLanguageTag(data.sourceLang);
  if (!sourceLang) {
    throw new PermanentError(
      'UNSUPPORTED_LANGUAGE',
      `sourceLang: unsupported language ${JSON.stringify(data.sourceLang)}`,
    );
  }
  if (data.entityType === FREE_TEXT_ENTITY_TYPE) {
    throw new PermanentError(
      'MODULE_CONFLICT',
      `entity type ${FREE_TEXT_ENTITY_TYPE} is reserved for free text translations`,
    );
  }
  const problems: string[] = [];
  checkName(problems, 'module', data.module, CONTENT_COLUMN_CHARS.module);
  checkName(problems, 'entityType', data.entityType, CONTENT_COLUMN_CHARS.entityType);
  checkName(problems, 'entityId', data.entityId, CONTENT_COLUMN_CHARS.entityId);
  if (!Number.isSafeInteger(data.sourceVersion) || data.sourceVersion < 0) {
    problems.push(`sourceVersion: ${data.sourceVersion} is not a non-negative integer`);
  }
  const names = new Set<string>();
  data.fields.forEach(({ name, text }, i) => {
    checkName(problems, `fields.${i}.name`, name, CONTENT_COLUMN_CHARS.field);
    if (names.has(name)) problems.push(`fields.${i}.name: ${JSON.stringify(name)} appears twice`);
    names.add(name);
    if (text.includes('\u0000')) problems.push(`fields.${i}.text: contains U+0000`);
  });
  if (problems.length > 0) throw new PermanentError('CONTENT_INVALID', problems.join('; '));
  return sourceLang === data.sourceLang ? data : { ...data, sourceLang };
}

/** The deletion as the planner applies it, or a PermanentError when it names nothing it could store. */
export function checkContentDeletion(data: ContentDeletedData): ContentDeletedData {
  if (data.entityType === FREE_TEXT_ENTITY_TYPE) {
    throw new PermanentError(
      'MODULE_CONFLICT',
      `entity type ${FREE_TEXT_ENTITY_TYPE} is reserved for free text translations`,
    );
  }
  const problems: string[] = [];
  checkName(problems, 'module', data.module, CONTENT_COLUMN_CHARS.module);
  checkName(problems, 'entityType', data.entityType, CONTENT_COLUMN_CHARS.entityType);
  checkName(problems, 'entityId', data.entityId, CONTENT_COLUMN_CHARS.entityId);
  const version = data.sourceVersion;
  if (version !== null && (!Number.isSafeInteger(version) || version < 0)) {
    problems.push(`sourceVersion: ${version} is not a non-negative integer`);
  }
  if (problems.length > 0) throw new PermanentError('CONTENT_INVALID', problems.join('; '));
  return data;
}

function checkName(problems: string[], path: string, value: string, maxChars: number): void {
  if (value.trim() === '') problems.push(`${path}: empty`);
  else if (codePoints(value) > maxChars) problems.push(`${path}: longer than ${maxChars} characters`);
  if (value.includes('\u0000')) problems.push(`${path}: contains U+0000`);
}
