// Dead-letter fixtures shared by the tests of the dead-letter index, the dlq CLI, the admin endpoints
// and the indexing consumer: real TranslationRequested messages that failed for good.
import { DeadLetterEntry, OutboxMessage, type Orm } from '@tp/db';
import type { NewDeadLetterEntry } from '@tp/pipeline';
import { newEvent, type EventCodec } from '@tp/schemas';

/** The time the fixtures' failures are counted from. */
export const T0 = Date.parse('2026-11-20T10:00:00Z');

/** T0 plus `minutes`. */
export const afterT0 = (minutes: number): Date => new Date(T0 + minutes * 60_000);

/** A request to translate field `name` of vendor `entityId` into `xx`, which is no language. */
export function untranslatableRequest(entityId: string, correlationId = `c-${entityId}`) {
  return newEvent(
    'TranslationRequested',
    {
      entityType: 'vendor',
      entityId,
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'xx',
      text: '你好',
      sourceHash: 'h',
      sourceVersion: 1,
      format: 'text',
      moreFields: [],
    },
    { correlationId },
  );
}

let nextOffset = 0;

/**
 * The dead letter of an untranslatableRequest, as the engine consumer's group would index it, failed
 * `minutes` after T0; each at an offset of its own, for vendor `v-<offset>`.
 */
export function deadLetter(
  codec: EventCodec,
  minutes = 0,
  overrides: Partial<NewDeadLetterEntry> = {},
): NewDeadLetterEntry {
  const offset = nextOffset++;
  const entityId = `v-${offset}`;
  const event = untranslatableRequest(entityId);
  const { value, headers } = codec.encode(event);
  return {
    eventId: event.eventId,
    originalTopic: 'translation.requested.v1',
    originalPartition: 2,
    originalOffset: offset,
    messageKey: Buffer.from(`vendor:${entityId}:name:xx`),
    payload: value,
    headers,
    consumerGroup: 'translator.engines',
    errorCode: 'UNSUPPORTED_LANGUAGE',
    errorMessage: 'xx is not a language',
    attempts: 1,
    failedAt: afterT0(minutes),
    ...overrides,
  };
}

/** Adds the entries to the index, one by one; returns their ids, oldest first. */
export async function addDeadLetters(
  index: {
    add(entry: NewDeadLetterEntry): Promise<unknown>;
    list(query: { limit: number }): Promise<readonly { id: number }[]>;
  },
  entries: readonly NewDeadLetterEntry[],
): Promise<number[]> {
  for (const entry of entries) await index.add(entry);
  return (await index.list({ limit: 1000 })).map((e) => e.id).reverse();
}

/** Empties the dead-letter index and the outbox (where replays go). */
export async function clearDeadLetters(orm: Orm): Promise<void> {
  await orm.em.fork().nativeDelete(DeadLetterEntry, {});
  await orm.em.fork().nativeDelete(OutboxMessage, {});
}
