import type { EntityManager } from '@mikro-orm/core';
import type { IntegrationEvent } from '@tp/contracts';
import type { EventCodec } from '@tp/schemas';

import { OutboxMessage } from './entities/index.js';

export interface OutboxEntry {
  readonly topic: string;
  /** Partition key; null spreads messages over partitions. */
  readonly key: string | null;
  readonly event: IntegrationEvent;
}

/**
 * Adds events to the outbox in the caller's unit of work. Call it inside the transaction that makes
 * the state change (em.transactional), so both commit or neither does. Events are encoded here, so an
 * event that does not match its schema fails the command instead of poisoning the topic later.
 */
export function addToOutbox(em: EntityManager, codec: EventCodec, entries: readonly OutboxEntry[]): void {
  for (const { topic, key, event } of entries) {
    const { value, headers } = codec.encode(event);
    em.create(OutboxMessage, {
      eventId: event.eventId,
      eventType: event.eventType,
      topic,
      messageKey: key,
      payload: value,
      headers,
    });
  }
}
