import type { IntegrationEvent } from '@tp/contracts';
import { withSpan } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import { executeBound } from '../bound.js';
import type { Orm } from '../orm.js';

export interface OutboxEntry {
  readonly topic: string;
  /** Partition key; null spreads messages over partitions. */
  readonly key: string | null;
  readonly event: IntegrationEvent;
}

/**
 * The `outbox write` span's attributes. Its context goes into each row's `traceparent` header (the
 * codec writes the active context), so the relay's `send` spans, and the consumers after them,
 * continue this trace.
 */
function outboxAttributes(entries: readonly OutboxEntry[]) {
  return {
    'tp.outbox.rows': entries.length,
    'tp.event.types': [...new Set(entries.map((e) => e.event.eventType))].join(','),
  };
}

/**
 * Adds events to the outbox with one INSERT on the caller's transaction: pass the em that
 * em.transactional hands over, so the rows commit with the state change or not at all. Events are
 * encoded here, so an event that does not match its schema fails the command instead of poisoning the
 * topic later. The one way to write the outbox, for one event as for a planner's batch of hundreds.
 */
export async function insertIntoOutbox(
  em: Orm['em'],
  codec: EventCodec,
  entries: readonly OutboxEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await writeOutboxRows(codec, entries, (rows) => insertOutboxRows(em, rows));
}

/**
 * Encodes events under an `outbox write` span that lasts until `write` (which inserts the rows) ends:
 * for a caller that inserts them later, with others' (the gateway's reports, by group commit).
 */
export function writeOutboxRows<T>(
  codec: EventCodec,
  entries: readonly OutboxEntry[],
  write: (rows: readonly EncodedOutboxRow[]) => Promise<T>,
): Promise<T> {
  return withSpan('outbox write', outboxAttributes(entries), () =>
    write(entries.map((entry) => encodeOutboxRow(codec, entry))),
  );
}

/**
 * One outbox row, encoded: its trace context is the one active when it was encoded. Its values are
 * the columns event_id, event_type, topic, message_key, payload and headers.
 */
export interface EncodedOutboxRow {
  readonly values: readonly [
    eventId: string,
    eventType: string,
    topic: string,
    key: string | null,
    payload: Buffer,
    headers: Readonly<Record<string, string>>,
  ];
}

/**
 * Encodes an entry now, in the caller's trace context, to be inserted later with others
 * (insertOutboxRows): a writer that gathers rows from many requests keeps each request's trace.
 */
export function encodeOutboxRow(codec: EventCodec, { topic, key, event }: OutboxEntry): EncodedOutboxRow {
  const { value, headers } = codec.encode(event);
  return { values: [event.eventId, event.eventType, topic, key, value, headers] };
}

/**
 * The outbox columns as one array each, and the rows' headers as one JSON array (six parameters
 * whatever the number of rows), zipped in order, so that ids follow the rows' order: the statement's
 * text is the same for every batch, where a VALUES list of six expressions per row had Postgres parse
 * and plan them all, every batch anew. The headers travel as one JSON document, serialised once, and
 * not as a jsonb[] array literal: the pg client escaped every quote of every row's JSON in JavaScript
 * (the outbox insert was the worker's largest pg client cost in the `BENCH_CPU_PROF` profile of
 * bench:pipeline).
 */
const INSERT_OUTBOX_ROWS =
  'insert into outbox (event_id, event_type, topic, message_key, payload, headers, created_at, attempts) ' +
  'select r.event_id, r.event_type, r.topic, r.message_key, r.payload, r.headers, now(), 0 ' +
  'from rows from (unnest(?::uuid[]), unnest(?::text[]), unnest(?::text[]), unnest(?::text[]), ' +
  'unnest(?::bytea[]), jsonb_array_elements(?::jsonb)) with ordinality ' +
  'as r (event_id, event_type, topic, message_key, payload, headers, n) order by r.n';

/**
 * Inserts encoded rows with one statement (on `em`'s transaction, or on its own without one), its
 * values bound (executeBound) as one array per column and the headers as one JSON array.
 */
export async function insertOutboxRows(em: Orm['em'], rows: readonly EncodedOutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const columns: unknown[][] = Array.from({ length: 5 }, () => []);
  const headers: Readonly<Record<string, string>>[] = [];
  for (const { values } of rows) {
    for (let column = 0; column < 5; column++) columns[column]?.push(values[column]);
    headers.push(values[5]);
  }
  await executeBound(em, INSERT_OUTBOX_ROWS, [...columns, JSON.stringify(headers)], 'run');
}

export interface OutboxBacklog {
  /** Rows not yet published. */
  readonly rows: number;
  /** Age of the oldest unpublished row in seconds; 0 when there is none. */
  readonly oldestAgeSeconds: number;
}

/**
 * What waits in the outbox. The oldest row is the smallest unpublished id (the partial index finds
 * it at once); the count walks that index, which stays small while the relay keeps up.
 */
export async function outboxBacklog(orm: Orm): Promise<OutboxBacklog> {
  const connection = orm.em.getConnection();
  const [oldest] = await connection.execute<{ age: number | null }[]>(
    'select extract(epoch from now() - created_at)::float8 as age from outbox ' +
      'where published_at is null order by id limit 1',
  );
  if (!oldest) return { rows: 0, oldestAgeSeconds: 0 };
  const [count] = await connection.execute<{ rows: string }[]>(
    'select count(*) as rows from outbox where published_at is null',
  );
  return { rows: Number(count?.rows ?? 0), oldestAgeSeconds: Math.max(0, Number(oldest.age ?? 0)) };
}
