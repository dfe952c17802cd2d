import { FREE_TEXT_ENTITY_TYPE } from '@tp/contracts';
import { executeBound, type Orm } from '@tp/db';
import { dataErrorAsPermanent } from '@tp/pipeline';

import { Coalescer, type ItemOutcome } from '../shared/coalescer.js';
import { shareEntityLocks } from '../shared/entity-lock.js';
import { AS_MACHINE_ROW, MACHINE_MAY_REPLACE } from './machine-may-replace.js';
import { rowKey, type TranslationRow } from './translation-row.js';

/** `written`: the row now holds this result; `ignored`: a newer version is stored, or this very event. */
export type WriteOutcome = 'written' | 'ignored';

const VALUE_COLUMNS =
  'entity_type, entity_id, field, target_lang, source_lang, translated_text, source_hash, source_version, ' +
  'requested_at, engine, truncated, fallback, last_event_id';
const COLUMNS = `(${VALUE_COLUMNS}, created_at, updated_at)`;
// The rows as one array per column (13 parameters whatever the batch size), unnested in order: the
// statement's text is the same for every batch, so Postgres parses and plans a few lines instead of
// a VALUES list of 13 expressions per row, where most of its CPU on this statement went. Bound
// parameters (executeBound); each array is typed by its cast.
const INSERT =
  `insert into content_translations as t ${COLUMNS} select ${VALUE_COLUMNS}, now(), now() from unnest(` +
  '?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ' +
  `?::text[], ?::boolean[], ?::boolean[], ?::uuid[]) with ordinality as v (${VALUE_COLUMNS}, n)`;
// The tombstone guard: a result of a version the entity was deleted at, or older, writes nothing.
const NOT_DELETED =
  ' where not exists (select 1 from content_deletions d where ' +
  'd.entity_type = v.entity_type and d.entity_id = v.entity_id and d.deleted_version >= v.source_version) ' +
  'order by v.n';
// The version guard: an older source version never overwrites a newer one; of the same version,
// only a result of a later request does (a retranslation), so a redelivered event, a second result
// of the same request, or a late or replayed result from before a retranslation writes nothing.
// Human translations and whole translations are protected further (machine-may-replace.ts).
const UPSERT =
  ' on conflict (entity_type, entity_id, field, target_lang) do update set source_lang = excluded.source_lang, ' +
  'translated_text = excluded.translated_text, source_hash = excluded.source_hash, ' +
  'source_version = excluded.source_version, requested_at = excluded.requested_at, engine = excluded.engine, ' +
  'truncated = excluded.truncated, fallback = excluded.fallback, last_event_id = excluded.last_event_id, updated_at = excluded.updated_at, ' +
  AS_MACHINE_ROW +
  ' where (t.source_version, t.requested_at) < (excluded.source_version, excluded.requested_at) and ' +
  MACHINE_MAY_REPLACE +
  ' ' +
  'returning t.entity_type, t.entity_id, t.field, t.target_lang';

interface KeyColumns {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly field: string;
  readonly target_lang: string;
}

/**
 * The projection's version-guarded upsert into content_translations; a result for a deleted entity
 * (of its deletion's version or older) writes nothing. Rows submitted at the same time
 * (messages of different partitions) are written by one statement; plain SQL, because the unit of
 * work's bookkeeping would cost more than the statement at thousands of rows a second. If a batch
 * fails, its rows are written one by one, so one bad row fails only its own message.
 */
export class TranslationWriter {
  private readonly batches: Coalescer<TranslationRow, WriteOutcome>;

  constructor(
    private readonly orm: Orm,
    options: { readonly maxInFlight?: number; readonly maxBatch?: number } = {},
  ) {
    this.batches = new Coalescer((rows) => this.writeBatch(rows), {
      maxBatch: options.maxBatch ?? 1000,
      maxInFlight: options.maxInFlight ?? 1,
    });
  }

  write(row: TranslationRow): Promise<WriteOutcome> {
    return this.batches.submit(row);
  }

  private async writeBatch(rows: readonly TranslationRow[]): Promise<ItemOutcome<WriteOutcome>[]> {
    try {
      return await this.upsert(rows);
    } catch (err) {
      if (rows.length === 1) return [{ ok: false, error: asPermanent(err) }];
      const outcomes: ItemOutcome<WriteOutcome>[] = [];
      for (const row of rows) {
        const [outcome] = await this.upsert([row]).catch((error: unknown) => [
          { ok: false as const, error: asPermanent(error) },
        ]);
        outcomes.push(outcome ?? { ok: false, error: new Error('no outcome') });
      }
      return outcomes;
    }
  }

  /** One statement for the batch; only the newest result per key takes part (ON CONFLICT needs distinct keys). */
  private async upsert(rows: readonly TranslationRow[]): Promise<ItemOutcome<WriteOutcome>[]> {
    // As if applied one by one in request order: a weaker result does not displace a stronger one.
    const winners = new Map<string, TranslationRow>();
    for (const row of [...rows].sort(order)) {
      const key = rowKey(row);
      const current = winners.get(key);
      if (!current || row.sourceVersion > current.sourceVersion || weakness(row) <= weakness(current)) {
        winners.set(key, row);
      }
    }
    // Key order, so that concurrent writers (other worker processes) lock rows in the same order.
    const keys = [...winners.keys()].sort();
    const columns: unknown[][] = Array.from({ length: 13 }, () => []);
    for (const key of keys) {
      const r = winners.get(key) as TranslationRow;
      const values = [
        r.entityType,
        r.entityId,
        r.field,
        r.targetLang,
        r.sourceLang,
        r.translatedText,
        r.sourceHash,
        r.sourceVersion,
        r.requestedAt,
        r.engine,
        r.truncated,
        r.fallback,
        r.lastEventId,
      ];
      values.forEach((value, column) => columns[column]?.push(value));
    }
    const statement = (em: Orm['em']) =>
      executeBound<KeyColumns>(em, INSERT + NOT_DELETED + UPSERT, columns, 'all');
    // Under the entities' shared locks, so a deletion is either before the statement or after it.
    // Free text (POST /api/v1/translate) is never deleted under that lock (no report or deletion
    // may name its type; its rows expire by age), so a batch of free text alone is one statement,
    // without the transaction and the lock: four round trips to Postgres become one.
    const locked = [...winners.values()].filter((r) => r.entityType !== FREE_TEXT_ENTITY_TYPE);
    const written =
      locked.length === 0
        ? await statement(this.orm.em.fork())
        : await this.orm.em.fork().transactional(async (em) => {
            await shareEntityLocks(em, locked);
            return statement(em);
          });
    const writtenKeys = new Set(
      written.map((w) => `${w.entity_type}\u0000${w.entity_id}\u0000${w.field}\u0000${w.target_lang}`),
    );
    return rows.map((row) => {
      const key = rowKey(row);
      const applied = winners.get(key) === row && writtenKeys.has(key);
      return { ok: true, value: applied ? 'written' : 'ignored' };
    });
  }
}

/** The guard's order of two results of one row: source version, then request time. */
const order = (a: TranslationRow, b: TranslationRow): number =>
  a.sourceVersion - b.sourceVersion || a.requestedAt - b.requestedAt;

/** MACHINE_MAY_REPLACE's rank of a machine result of one source version: 0 whole, 1 fallback, 2+ truncated. */
const weakness = (row: TranslationRow): number => (row.truncated ? 2 : 0) + (row.fallback ? 1 : 0);

/** A result the database refuses as data is permanent (RESULT_INVALID). */
const asPermanent = (err: unknown): unknown => dataErrorAsPermanent(err, 'RESULT_INVALID');
