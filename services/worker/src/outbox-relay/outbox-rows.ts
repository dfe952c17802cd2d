import type { OutboxRow } from '@tp/db';
import type { OutgoingMessage, TopicMessages } from '@tp/kafka';
import type { NewDeadLetterEntry } from '@tp/pipeline';

/** An unpublished outbox row as the relay reads it (the outbox's owner, libs/db). */
export type { OutboxRow };

/** Why a row can never be published; the code stays with its dead letter. */
export interface RowFailure {
  readonly code: 'OUTBOX_ROW_INVALID' | 'OUTBOX_MESSAGE_TOO_LARGE' | 'OUTBOX_MESSAGE_REFUSED';
  readonly message: string;
}

/** The `consumer_group` of the dead letters the relay makes: no consumer group failed them. */
export const RELAY_DEAD_LETTER_GROUP = 'worker.outbox-relay';

/**
 * The Kafka message of a row, or why none can be made: headers must be an object of strings (the
 * outbox writers make them so; a row written by hand or by an older release may not be).
 */
export function rowMessage(row: OutboxRow): OutgoingMessage | RowFailure {
  const { headers } = row;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return { code: 'OUTBOX_ROW_INVALID', message: 'headers are not a JSON object' };
  }
  const bad = Object.entries(headers).find(([, value]) => typeof value !== 'string');
  if (bad) {
    return { code: 'OUTBOX_ROW_INVALID', message: `header ${JSON.stringify(bad[0])} is not a string` };
  }
  return { key: row.message_key, value: row.payload, headers: headers as Record<string, string> };
}

/** Messages per topic, in row (id) order within each topic. */
export function byTopic(rows: readonly { row: OutboxRow; message: OutgoingMessage }[]): TopicMessages[] {
  const groups = new Map<string, OutgoingMessage[]>();
  for (const { row, message } of rows) {
    const list = groups.get(row.topic) ?? [];
    list.push(message);
    groups.set(row.topic, list);
  }
  return [...groups].map(([topic, messages]) => ({ topic, messages }));
}

/**
 * The dead-letter entry of a row that can never be published. It was never in Kafka, so it has no
 * partition or offset: partition -1 and the row's id stand in for them (one entry per row).
 */
export function rowDeadLetter(row: OutboxRow, failure: RowFailure): NewDeadLetterEntry {
  const headers: Record<string, string> = {};
  if (typeof row.headers === 'object' && row.headers !== null && !Array.isArray(row.headers)) {
    for (const [name, value] of Object.entries(row.headers)) headers[name] = String(value);
  }
  return {
    eventId: row.event_id,
    originalTopic: row.topic,
    originalPartition: -1,
    originalOffset: Number(row.id),
    messageKey: row.message_key === null ? null : Buffer.from(row.message_key, 'utf8'),
    payload: row.payload,
    headers,
    consumerGroup: RELAY_DEAD_LETTER_GROUP,
    errorCode: failure.code,
    errorMessage: failure.message.slice(0, 2000),
    attempts: row.attempts + 1,
    failedAt: new Date(),
  };
}

/** The row's `traceparent`/`tracestate` headers (the context it was written in), when it has them. */
export function rowTraceHeaders(row: OutboxRow): Record<string, string> {
  const { headers } = row;
  if (typeof headers !== 'object' || headers === null) return {};
  const out: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = (headers as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
