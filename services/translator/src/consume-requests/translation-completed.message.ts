import type { TranslationRequested } from '@tp/contracts';
import type { OutgoingMessage } from '@tp/kafka';
import { translationCompletedData } from '@tp/pipeline';
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
  const event = newEvent(
    'TranslationCompleted',
    // Orders the results of one source version: a retranslation's (a later request) wins.
    translationCompletedData(request.data, result, request.occurredAt),
    { correlationId: request.correlationId, causationId: request.eventId },
  );
  const { value, headers } = codec.encode(event);
  return { key, value, headers };
}
