import type { DeadLetterRecord, DeadLetterSummary, PayloadView } from '@tp/pipeline';
import { z } from 'zod';

/** A dead-letter id in a path or query (digits only; ids are bigserial, far below 2^53). */
export const entryId = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, { message: 'must be a dead-letter id (a positive integer)' })
  .transform(Number);

export const dateTime = z.iso.datetime({ offset: true });

export const deadLetterSummarySchema = z
  .object({
    id: z.int().positive(),
    event_id: z.string().nullable().meta({ description: '`tp-event-id` of the failed message.' }),
    original_topic: z.string(),
    original_partition: z.int().nonnegative(),
    original_offset: z.int().nonnegative(),
    key: z.string().nullable().meta({ description: 'The original key as UTF-8 text.' }),
    consumer_group: z.string().meta({ description: 'The consumer group that gave up on the message.' }),
    error_code: z.string(),
    error_message: z.string(),
    attempts: z.int().nonnegative(),
    failed_at: z.iso.datetime(),
    created_at: z.iso.datetime().meta({ description: 'When the entry was indexed.' }),
  })
  .meta({ id: 'DeadLetterSummary' });

const payloadSchema = z
  .discriminatedUnion('encoding', [
    z.object({
      encoding: z.literal('json'),
      value: z.unknown().meta({ description: 'The event, decoded with its schema (bytes as base64).' }),
    }),
    z.object({
      encoding: z.literal('base64'),
      value: z.string(),
      decode_error: z.string().meta({ description: 'Why the payload does not decode as an event.' }),
    }),
  ])
  .meta({ id: 'DeadLetterPayload' });

export const deadLetterSchema = deadLetterSummarySchema
  .extend({
    headers: z.record(z.string(), z.string()),
    payload: payloadSchema,
  })
  .meta({ id: 'DeadLetter' });

export function summaryJson(entry: DeadLetterSummary): z.input<typeof deadLetterSummarySchema> {
  return {
    id: entry.id,
    event_id: entry.eventId,
    original_topic: entry.originalTopic,
    original_partition: entry.originalPartition,
    original_offset: entry.originalOffset,
    key: entry.messageKey ? entry.messageKey.toString('utf8') : null,
    consumer_group: entry.consumerGroup,
    error_code: entry.errorCode,
    error_message: entry.errorMessage,
    attempts: entry.attempts,
    failed_at: entry.failedAt.toISOString(),
    created_at: entry.createdAt.toISOString(),
  };
}

export function detailJson(entry: DeadLetterRecord, payload: PayloadView): z.input<typeof deadLetterSchema> {
  return {
    ...summaryJson(entry),
    headers: { ...entry.headers },
    payload:
      payload.encoding === 'json'
        ? payload
        : { encoding: 'base64', value: payload.value, decode_error: payload.decodeError },
  };
}
