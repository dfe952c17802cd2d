import { HEADERS } from '@tp/contracts';
import { executeBound, type BackfillOrigin, type BackfillStatus } from '@tp/db';

import type { Em } from './em.js';

// The SQL of translation_backfills: one row per backfill (docs/pipeline.md, "Backfill"). The runner
// (services/worker) locks running rows one tick at a time; the admin API and the CLI create, cancel
// and list them.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a backfill translates: the fields lacking `language`, of a module and an entity type when set. */
export interface BackfillScope {
  readonly language: string;
  readonly module: string | null;
  readonly entityType: string | null;
}

/** The last entity a backfill requested: the next one comes after it in (entity_type, entity_id) order. */
export interface BackfillCursor {
  readonly entityType: string;
  readonly entityId: string;
}

/** A translation_backfills row. */
export interface Backfill extends BackfillScope {
  readonly id: string;
  readonly origin: BackfillOrigin;
  readonly status: BackfillStatus;
  readonly cursor: BackfillCursor;
  readonly total: number;
  readonly requested: number;
  readonly done: number;
  readonly failed: number;
  readonly remaining: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** When it was created; fields the planner requested later are not the backfill's. */
  readonly sourcesBefore: Date;
  readonly emittedAt: Date | null;
  readonly finishedAt: Date | null;
}

interface BackfillRow {
  id: string;
  language: string;
  module: string | null;
  entity_type: string | null;
  origin: BackfillOrigin;
  status: BackfillStatus;
  cursor_type: string;
  cursor_id: string;
  total: number;
  requested: number;
  done: number;
  failed: number;
  remaining: number;
  created_at: Date;
  updated_at: Date;
  sources_before: Date;
  emitted_at: Date | null;
  finished_at: Date | null;
}

const backfill = (r: BackfillRow): Backfill => ({
  id: r.id,
  language: r.language,
  module: r.module,
  entityType: r.entity_type,
  origin: r.origin,
  status: r.status,
  cursor: { entityType: r.cursor_type, entityId: r.cursor_id },
  total: r.total,
  requested: r.requested,
  done: r.done,
  failed: r.failed,
  remaining: r.remaining,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  sourcesBefore: new Date(r.sources_before),
  emittedAt: r.emitted_at ? new Date(r.emitted_at) : null,
  finishedAt: r.finished_at ? new Date(r.finished_at) : null,
});

/** A new backfill, running from the first entity; `total` fields lack the language now. */
export interface NewBackfill extends BackfillScope {
  readonly id: string;
  readonly origin: BackfillOrigin;
  readonly total: number;
}

/**
 * Serialises the creation of backfills until the transaction ends (a transaction-scoped advisory
 * lock), so two requests for the same scope cannot both start one.
 */
export async function lockBackfillCreation(em: Em): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtext('translation_backfills'))`);
}

/**
 * `sources_before` is the clock rounded up to a whole millisecond: a Date reads it exactly, and the
 * backfill still asks for a field a planner transaction of that last millisecond requested (twice at
 * worst), never leaving one that transaction planned without the language.
 */
export async function insertBackfill(em: Em, job: NewBackfill): Promise<Backfill> {
  const [row] = await executeBound<BackfillRow>(
    em,
    'insert into translation_backfills (id, language, module, entity_type, origin, total, remaining, ' +
      'sources_before, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ' +
      "date_trunc('milliseconds', clock_timestamp()) + interval '1 millisecond', now(), now()) returning *",
    [job.id, job.language, job.module, job.entityType, job.origin, job.total, job.total],
    'all',
  );
  return backfill(row as BackfillRow);
}

/** The running backfill of exactly this scope, if there is one. */
export async function runningBackfillOf(em: Em, scope: BackfillScope): Promise<Backfill | undefined> {
  const rows = await executeBound<BackfillRow>(
    em,
    "select * from translation_backfills where status = 'running' and language = ? " +
      'and module is not distinct from ? and entity_type is not distinct from ? limit 1',
    [scope.language, scope.module, scope.entityType],
    'all',
  );
  return rows[0] && backfill(rows[0]);
}

export async function findBackfill(em: Em, id: string): Promise<Backfill | undefined> {
  if (!UUID.test(id)) return undefined;
  const rows = await em.execute<BackfillRow[]>('select * from translation_backfills where id = ?', [id]);
  return rows[0] && backfill(rows[0]);
}

/** Running backfills, oldest first, locked for this transaction; those another runner holds are skipped. */
export async function lockRunningBackfills(em: Em, limit: number): Promise<Backfill[]> {
  const rows = await executeBound<BackfillRow>(
    em,
    "select * from translation_backfills where status = 'running' order by created_at, id " +
      'limit ? for update skip locked',
    [limit],
    'all',
  );
  return rows.map(backfill);
}

/** The running backfills and the latest others, newest first: what the status page shows. */
export async function latestBackfills(em: Em, limit: number): Promise<Backfill[]> {
  const rows = await executeBound<BackfillRow>(
    em,
    "select * from translation_backfills order by (status = 'running') desc, created_at desc, id limit ?",
    [limit],
    'all',
  );
  return rows.map(backfill);
}

/** What one runner tick measured and requested. */
export interface BackfillProgress {
  readonly cursor: BackfillCursor;
  /** Field translations this tick requested (added to the row's count). */
  readonly requested: number;
  readonly done: number;
  readonly remaining: number;
  /** The cursor reached the end this tick. */
  readonly emitted: boolean;
  /** Every request is answered: the backfill is done. */
  readonly finished: boolean;
}

export async function recordBackfillProgress(em: Em, id: string, p: BackfillProgress): Promise<void> {
  await executeBound(
    em,
    'update translation_backfills set cursor_type = ?, cursor_id = ?, requested = requested + ?, ' +
      'done = ?, remaining = ?, updated_at = now(), ' +
      'emitted_at = case when ? then coalesce(emitted_at, now()) else emitted_at end, ' +
      "status = case when ? then 'done' else status end, " +
      'finished_at = case when ? then now() else finished_at end where id = ?',
    [
      p.cursor.entityType,
      p.cursor.entityId,
      p.requested,
      p.done,
      p.remaining,
      p.emitted,
      p.finished,
      p.finished,
      id,
    ],
    'run',
  );
}

/**
 * Ends running backfills: `cancelled` (an operator) or `stopped` (their language left the
 * configuration). Requests already written stay and are answered as usual.
 */
export async function endBackfills(
  em: Em,
  status: 'cancelled' | 'stopped',
  which: { readonly id: string } | { readonly languagesKept: readonly string[] },
): Promise<Backfill[]> {
  if ('id' in which && !UUID.test(which.id)) return [];
  const [where, param] =
    'id' in which
      ? ['id = ?', which.id]
      : [
          'not (language = any(array(select jsonb_array_elements_text(?::jsonb))))',
          JSON.stringify(which.languagesKept),
        ];
  const rows = await executeBound<BackfillRow>(
    em,
    `update translation_backfills set status = ?, finished_at = now(), updated_at = now() ` +
      `where status = 'running' and ${where} returning *`,
    [status, param],
    'all',
  );
  return rows.map(backfill);
}

/**
 * Counts a new dead letter on the backfill it belongs to: its requests carry the backfill's id as
 * their causation id. One primary-key update at most; dead letters of anything else change nothing.
 */
export async function countDeadLetterOnBackfill(
  em: Em,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  const causationId = headers[HEADERS.causationId];
  if (!causationId || !UUID.test(causationId)) return;
  await em.execute('update translation_backfills set failed = failed + 1 where id = ?', [causationId], 'run');
}
