import { HEADERS, topicName } from '@tp/contracts';
import type { IncomingMessage, OutgoingMessage } from '@tp/kafka';
import { headerString, newEvent, type EventCodec } from '@tp/schemas';

export interface Failure {
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
}

/**
 * The DeadLetter event for a message that failed for good: the original bytes, key, headers and
 * position, so that a replay can put it back exactly where it came from. Keyed like the original.
 */
export function deadLetterMessage(
  codec: EventCodec,
  message: IncomingMessage,
  failure: Failure,
  consumerGroup: string,
): OutgoingMessage {
  const originalHeaders: Record<string, Buffer> = {};
  for (const name of Object.keys(message.headers)) {
    const value = headerString(message.headers, name);
    if (value !== undefined) originalHeaders[name] = Buffer.from(value, 'utf8');
  }
  const correlationId = headerString(message.headers, HEADERS.correlationId) ?? 'unknown';
  const event = newEvent(
    'DeadLetter',
    {
      originalTopic: message.topic,
      originalPartition: message.partition,
      originalOffset: Number(message.offset),
      originalKey: message.key,
      originalValue: message.value ?? Buffer.alloc(0),
      originalHeaders,
      consumerGroup,
      errorCode: failure.code,
      errorMessage: failure.message.slice(0, 2000),
      attempts: failure.attempts,
      failedAt: Date.now(),
    },
    { correlationId, causationId: headerString(message.headers, HEADERS.eventId) ?? null },
  );
  const { value, headers } = codec.encode(event);
  return { key: message.key ? message.key.toString('utf8') : null, value, headers };
}

export const deadLetterTopic = (prefix = '') => topicName('deadLetter', prefix);
