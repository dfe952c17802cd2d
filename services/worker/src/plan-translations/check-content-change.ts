import type { ContentChangedData, ContentDeletedData } from '@tp/contracts';
import { brokenContentRules, PermanentError } from '@tp/pipeline';
import { normaliseLanguageTag } from '@tp/translation';

/**
 * The change as the planner stores it (source language as our code), or a PermanentError when the API
 * could never serve it: UNSUPPORTED_LANGUAGE for a language outside the list, CONTENT_INVALID naming
 * every broken rule of the rulebook the gateway's schemas use too (libs/pipeline content-rules.ts).
 * Changes produced to Kafka directly skip the gateway, so everything is checked here.
 */
export function checkContentChange(data: ContentChangedData): ContentChangedData {
  const sourceLang = normaliseLanguageTag(data.sourceLang);
  if (!sourceLang) {
    throw new PermanentError(
      'UNSUPPORTED_LANGUAGE',
      `sourceLang: unsupported language ${JSON.stringify(data.sourceLang.slice(0, 40))}`,
    );
  }
  assertKeepsRules(data);
  return sourceLang === data.sourceLang ? data : { ...data, sourceLang };
}

/** The deletion as the planner applies it, or a CONTENT_INVALID naming every broken rule. */
export function checkContentDeletion(data: ContentDeletedData): ContentDeletedData {
  assertKeepsRules(data);
  return data;
}

function assertKeepsRules(data: ContentChangedData | ContentDeletedData): void {
  const broken = brokenContentRules(data);
  if (broken !== undefined) throw new PermanentError('CONTENT_INVALID', broken);
}
