import { randomUUID } from 'node:crypto';

import type { IntegrationEvent } from '@tp/contracts';

type DataOf<T extends IntegrationEvent['eventType']> = Extract<IntegrationEvent, { eventType: T }>['data'];

export interface EventContext {
  /** Shared by everything one original request caused; start one with randomUUID() at the edge. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId?: string | null;
}

/**
 * Builds an event with a fresh id and timestamp. eventVersion is filled in by the codec with the
 * version it writes, so it is 0 here.
 */
export function newEvent<T extends IntegrationEvent['eventType']>(
  eventType: T,
  data: DataOf<T>,
  context: EventContext,
): Extract<IntegrationEvent, { eventType: T }> {
  return {
    eventId: randomUUID(),
    eventType,
    eventVersion: 0,
    occurredAt: Date.now(),
    correlationId: context.correlationId,
    causationId: context.causationId ?? null,
    data,
  } as Extract<IntegrationEvent, { eventType: T }>;
}
