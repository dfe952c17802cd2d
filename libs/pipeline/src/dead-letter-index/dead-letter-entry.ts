import { HEADERS, type DeadLetter } from '@tp/contracts';

/**
 * Header naming the part of its original message a dead letter holds, when it holds one part of
 * several (a translation request's fields fail one by one, each its own dead letter of one offset).
 */
export const DEAD_LETTER_PART_HEADER = 'tp-dead-letter-part';

/** What the index stores for one dead letter (the row without its id and creation time). */
export interface NewDeadLetterEntry {
  /** tp-event-id of the failed message, when it had one. */
  readonly eventId: string | null;
  readonly originalTopic: string;
  readonly originalPartition: number;
  readonly originalOffset: number;
  /** DEAD_LETTER_PART_HEADER, '' for a whole message. */
  readonly originalPart?: string;
  readonly messageKey: Buffer | null;
  readonly payload: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly consumerGroup: string;
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly attempts: number;
  readonly failedAt: Date;
}

/** The index entry of a DeadLetter event: the original message as it was, and why it failed. */
export function deadLetterEntry(event: DeadLetter): NewDeadLetterEntry {
  const { data } = event;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(data.originalHeaders)) headers[name] = value.toString('utf8');
  const eventId = headers[HEADERS.eventId];
  return {
    eventId: eventId ? eventId.slice(0, 100) : null,
    originalTopic: data.originalTopic,
    originalPartition: data.originalPartition,
    originalOffset: data.originalOffset,
    originalPart: (headers[DEAD_LETTER_PART_HEADER] ?? '').slice(0, 200),
    messageKey: data.originalKey,
    payload: data.originalValue,
    headers,
    consumerGroup: data.consumerGroup,
    errorCode: data.errorCode.slice(0, 100),
    errorMessage: data.errorMessage,
    attempts: data.attempts,
    failedAt: new Date(data.failedAt),
  };
}
