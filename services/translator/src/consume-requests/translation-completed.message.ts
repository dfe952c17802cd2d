import type { TranslationRequested } from '@tp/contracts';
import type { OutgoingMessage } from '@tp/kafka';
import { newEvent, type EventCodec } from '@tp/schemas';

import type { TranslationResult } from '../translate/translate-text.js';

/**
 * The TranslationCompleted answering one request: same entity, field and version, the language codes
 * as the use case normalised them (for `auto`, the language found), caused by the request and in its
 * correlation. Keyed like the request, so a field's results stay in order on one partition.
 */
export function translationCompletedMessage(
  codec: EventCodec,
  request: TranslationRequested,
  result: TranslationResult,
  key: string,
): OutgoingMessage {
  const { data } = request;
  const event = newEvent(
    'TranslationCompleted',
    {
      entityType: data.entityType,
      entityId: data.entityId,
      field: data.field,
      sourceLang: result.source,
      targetLang: result.target,
      translatedText: result.translatedText,
      sourceHash: data.sourceHash,
      sourceVersion: data.sourceVersion,
      engine: result.engine,
      truncated: result.truncated,
      detectedSourceLang: result.detectedSource ?? null,
      // Orders the results of one source version: a retranslation's (a later request) wins.
      requestedAt: request.occurredAt,
    },
    { correlationId: request.correlationId, causationId: request.eventId },
  );
  const { value, headers } = codec.encode(event);
  return { key, value, headers };
}
