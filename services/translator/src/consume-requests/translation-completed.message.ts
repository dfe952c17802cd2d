import type { TranslationRequested } from '@tp/contracts';
import type { IncomingMessage, OutgoingMessage } from '@tp/kafka';
import {
  translationCompletedData,
  type FieldFailure,
  type FieldRequest,
  type FieldTranslation,
} from '@tp/pipeline';
import { headerString, newEvent, type EventCodec } from '@tp/schemas';

import type { TranslationResult } from '../translate/translate-text.js';

/**
 * The TranslationCompleted answering one request: each translated field with its result (same
 * entity, fields and versions, the language codes as the use case normalised them), the fields that
 * failed in `failures`, caused by the request and in its correlation. Keyed like the request, so an
 * entity's results in a language stay in order on one partition.
 */
export function translationCompletedMessage(
  codec: EventCodec,
  request: TranslationRequested,
  translated: readonly { readonly field: FieldRequest; readonly result: TranslationResult }[],
  failures: readonly FieldFailure[],
  key: string,
): OutgoingMessage {
  const { entityType, entityId } = request.data;
  const results = translated.map(({ field, result }): FieldTranslation => ({
    field: { ...field, entityType, entityId },
    outcome: result,
  }));
  const event = newEvent(
    'TranslationCompleted',
    // Orders the results of one source version: a retranslation's (a later request) wins.
    translationCompletedData(
      results as [FieldTranslation, ...FieldTranslation[]],
      request.occurredAt,
      failures,
    ),
    { correlationId: request.correlationId, causationId: request.eventId },
  );
  const { value, headers } = codec.encode(event);
  return { key, value, headers };
}

/**
 * The message as if it had asked for `fields` alone: the same event (id, time, correlation, entity
 * and language) with only those fields, its other headers kept. What goes to the retry topic or the
 * dead letters for fields that failed while others of the request did not; a replay asks for them.
 */
export function fieldMessage(
  codec: EventCodec,
  message: IncomingMessage,
  request: TranslationRequested,
  [first, ...more]: readonly FieldRequest[],
): IncomingMessage {
  if (!first) throw new Error('fieldMessage needs at least one field');
  const event: TranslationRequested = {
    ...request,
    data: { ...request.data, ...first, moreFields: more },
  };
  const encoded = codec.encode(event);
  const headers: Record<string, string> = {};
  for (const name of Object.keys(message.headers)) {
    const value = headerString(message.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  return { ...message, value: encoded.value, headers: { ...headers, ...encoded.headers } };
}
