import { executeBound } from '../bound.js';
import type { Orm } from '../orm.js';

type Em = Orm['em'];

/** One outbox row as the relay publishes it (plain SQL: hydrating hundreds of entities cost more). */
export interface OutboxRow {
  readonly id: string;
  readonly event_id: string;
  readonly topic: string;
  readonly message_key: string | null;
  readonly payload: Buffer;
  readonly headers: unknown;
  readonly attempts: number;
}

/**
 * The next batch, in id order. `id >= min(id)` changes no answer, but it makes the plan read only
 * from the oldest unpublished row on: without it, the few live rows of the table lead the planner to
 * read every entry of the unpublished index (or the whole table) and sort, and until vacuum those
 * include every row published since, each a visit to the heap, at each batch. The min() walks the
 * index from its start, but the dead entries it passes are marked once and skipped after.
 * The relays' advisory lock is tried first (an InitPlan, a one-time filter of the plan): when another
 * relay holds it no row is read or locked, one round trip less per batch than a statement of its own.
 */
const LOCKED_UNPUBLISHED_BATCH =
  'select id, event_id, topic, message_key, payload, headers, attempts from outbox ' +
  'where (select pg_try_advisory_xact_lock(hashtextextended(?, 0))) and published_at is null ' +
  'and id >= (select min(id) from outbox where published_at is null) ' +
  'order by id limit ? for update skip locked';

/** Whether any row waits to be published (one statement, no transaction, no lock). */
export async function anyUnpublished(em: Em): Promise<boolean> {
  const [pending] = await executeBound<{ waiting: boolean }>(
    em,
    'select exists (select 1 from outbox where published_at is null) as waiting',
    [],
    'all',
  );
  return pending?.waiting === true;
}

/**
 * Up to `limit` unpublished rows in id order, locked until the transaction ends, when this caller
 * gets the relays' lock `lockName`; none when another relay holds it or nothing waits.
 */
export function lockUnpublishedBatch(em: Em, lockName: string, limit: number): Promise<OutboxRow[]> {
  return executeBound<OutboxRow>(em, LOCKED_UNPUBLISHED_BATCH, [lockName, limit], 'all');
}

/**
 * Deletes published rows: Kafka keeps the events, and a marked row would be written twice (marked,
 * then purged) and stay a dead entry in the unpublished index until vacuum.
 */
export async function deleteOutboxRows(em: Em, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // The ids bound as one Postgres array (executeBound does not spread arrays).
  await executeBound(em, 'delete from outbox where id = any(?::bigint[])', [ids], 'run');
}

/** Notes a failed send on rows that wait for the next batch. */
export async function recordOutboxFailure(em: Em, ids: readonly string[], error: string): Promise<void> {
  if (ids.length === 0) return;
  await executeBound(
    em,
    'update outbox set attempts = attempts + 1, last_error = ? where id = any(?::bigint[])',
    [error, ids],
    'run',
  );
}
