import { FREE_TEXT_ENTITY_TYPE, topicName } from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { sourceHash, translationMessageKey } from '@tp/pipeline';
import { newEvent } from '@tp/schemas';
import { hotCacheHash } from '@tp/translation';

/** A translation the chain produced (never a cache hit), as the outbox event needs it. */
export interface CompletedTranslation {
  readonly text: string;
  /** Source language actually used (`auto` only when nobody could tell). */
  readonly source: string;
  readonly target: string;
  readonly translatedText: string;
  readonly engine: string;
  readonly truncated: boolean;
  /** Set when the request said `auto`. */
  readonly detectedSource?: string;
}

export interface EventOrigin {
  readonly correlationId: string;
  /** The request id: the direct cause of the event. */
  readonly causationId: string;
}

/**
 * Free text has no business entity, so a translation is filed under entity type `text` and the hot
 * cache hash of (source, target, text) as its id: the same text translated again lands on the same
 * content_translations row. `sourceVersion` is 0 because free text has no versions; `sourceHash` is
 * the full SHA-256 of the text, so a consumer can tell the text apart from a hash collision.
 */
export function translationCompletedEntry(
  completed: CompletedTranslation,
  topicPrefix: string,
  origin: EventOrigin,
): OutboxEntry {
  const entityId = hotCacheHash({
    source: completed.source,
    target: completed.target,
    text: completed.text,
  });
  const event = newEvent(
    'TranslationCompleted',
    {
      entityType: FREE_TEXT_ENTITY_TYPE,
      entityId,
      field: 'text',
      sourceLang: completed.source,
      targetLang: completed.target,
      translatedText: completed.translatedText,
      sourceHash: sourceHash(completed.text),
      sourceVersion: 0,
      engine: completed.engine,
      truncated: completed.truncated,
      detectedSourceLang: completed.detectedSource ?? null,
      // No request precedes a free text's result: the latest result for a text is the one kept.
      requestedAt: Date.now(),
    },
    origin,
  );
  return {
    topic: topicName('translationCompleted', topicPrefix),
    key: translationMessageKey(event.data),
    event,
  };
}
