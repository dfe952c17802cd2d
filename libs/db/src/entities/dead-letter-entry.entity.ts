import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Operator view of a permanently failed message (at most DEAD_LETTER_MAX_ENTRIES kept, oldest evicted;
 * the topic keeps them by time). The original key, bytes and headers are kept for replay.
 */
export const DeadLetterEntry = defineEntity({
  name: 'DeadLetterEntry',
  tableName: 'dead_letters',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    eventId: p.string().length(100).nullable(),
    originalTopic: p.string().length(200),
    originalPartition: p.integer(),
    originalOffset: p.bigint('number'),
    /** The part of the original message this entry holds ('' for all of it): a request's field. */
    originalPart: p.string().length(200).default(''),
    messageKey: p.blob().nullable(),
    payload: p.blob(),
    headers: p.json<Record<string, string>>(),
    consumerGroup: p.string().length(200),
    errorCode: p.string().length(100),
    errorMessage: p.text(),
    attempts: p.integer(),
    failedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'dead_letters_failed_at_idx', properties: ['failedAt'] }],
  // One entry per failed message (or part of one) and consumer group: indexing a redelivered dead
  // letter is a no-op, and so is a second delivery of the same event at another offset.
  uniques: [
    {
      name: 'dead_letters_origin_unique',
      properties: ['consumerGroup', 'originalTopic', 'originalPartition', 'originalOffset', 'originalPart'],
    },
    {
      name: 'dead_letters_event_unique',
      properties: ['consumerGroup', 'originalTopic', 'eventId', 'originalPart'],
    },
  ],
});
export type DeadLetterEntry = InferEntity<typeof DeadLetterEntry>;
