import { FREE_TEXT_ENTITY_TYPE } from '@tp/contracts';
import type { Orm } from '@tp/db';
import {
  dataErrorAsPermanent,
  shareEntityLocks,
  upsertTranslations,
  type TranslationWrite,
} from '@tp/pipeline';
import { Coalescer, type ItemOutcome } from '@tp/runtime';

import { rowKey, type TranslationRow } from './translation-row.js';

/** `written`: the row now holds this result; `ignored`: a newer version is stored, or this very event. */
export type WriteOutcome = 'written' | 'ignored';

/**
 * The projection's writes of machine results, through the content store's one upsert of
 * content_translations (its rules: an older version never overwrites a newer one, a human edit wins
 * for its source version, a deleted entity stays deleted). Rows submitted at the same time (messages
 * of different partitions) are written by one statement. If a batch fails, its rows are written one
 * by one, so one bad row fails only its own message.
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

  /** The rows of one message, in one statement with whatever else is waiting (one outcome each). */
  writeAll(rows: readonly TranslationRow[]): Promise<WriteOutcome[]> {
    return Promise.all(this.batches.submitAll(rows));
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
    const writes = [...winners.keys()].sort().map((key) => machineWrite(winners.get(key) as TranslationRow));
    const statement = (em: Orm['em']) => upsertTranslations(em, writes);
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

/** A result as the content store writes it: a machine row, written by no key. */
const machineWrite = ({ lastEventId, ...row }: TranslationRow): TranslationWrite => ({
  ...row,
  eventId: lastEventId,
  origin: 'machine',
  writtenBy: null,
});

/** MACHINE_MAY_REPLACE's rank of a machine result of one source version: 0 whole, 1 fallback, 2+ truncated. */
const weakness = (row: TranslationRow): number => (row.truncated ? 2 : 0) + (row.fallback ? 1 : 0);

/** A result the database refuses as data is permanent (RESULT_INVALID). */
const asPermanent = (err: unknown): unknown => dataErrorAsPermanent(err, 'RESULT_INVALID');
