import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An event waiting to be published. Written in the same transaction as the state change that caused
 * it; the worker's relay publishes rows in id order and deletes them. `published_at` is set only on
 * rows an older release marked published (and kept for OUTBOX_RETENTION_HOURS).
 */
export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    eventId: p.uuid().unique('outbox_event_id_unique'),
    eventType: p.string().length(100),
    topic: p.string().length(200),
    messageKey: p.string().length(500).nullable(),
    /** The Avro-encoded event, exactly the bytes that go to Kafka. */
    payload: p.blob(),
    headers: p.json<Record<string, string>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    publishedAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
  indexes: [{ name: 'outbox_unpublished_idx', properties: ['id'], where: { publishedAt: null } }],
});
export type OutboxMessage = InferEntity<typeof OutboxMessage>;
