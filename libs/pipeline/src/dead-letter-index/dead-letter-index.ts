import { randomUUID } from 'node:crypto';

import { LockMode, type QueryResult } from '@mikro-orm/core';
import { HEADERS } from '@tp/contracts';
import { DeadLetterEntry, OutboxMessage, type Orm } from '@tp/db';
import { AppError, codePoints } from '@tp/runtime';

import { countDeadLetterOnBackfill } from '../content-store/backfills.js';
import { countDeadLetterOnReport } from '../content-store/content-reports.js';
import type { NewDeadLetterEntry } from './dead-letter-entry.js';
import type {
  DeadLetterFilter,
  DeadLetterKind,
  DeadLetterSelection,
  OnProgress,
  PurgeOutcome,
  ReplayOutcome,
} from './dead-letter-selection.js';

/** Entries the index keeps unless told otherwise (the limit). */
export const DEFAULT_MAX_DEAD_LETTERS = 1000;
/** Entries replayed or purged per transaction. */
export const DEAD_LETTER_BATCH_SIZE = 100;
/** Header added to a replayed message: the id of the dead-letter entry it came from. */
export const REPLAYED_FROM_HEADER = 'tp-replayed-from';
/** The outbox's message_key column (varchar(500)). */
const MAX_OUTBOX_KEY_CHARS = 500;

/** One entry of the index, as stored. */
export interface DeadLetterRecord extends NewDeadLetterEntry {
  readonly id: number;
  readonly createdAt: Date;
}

/** An entry without its payload and headers, for listings. */
export type DeadLetterSummary = Omit<DeadLetterRecord, 'payload' | 'headers'>;

export interface DeadLetterListQuery {
  readonly limit: number;
  /** Only entries with a smaller id (the next page of a newest-first listing). */
  readonly beforeId?: number;
  /** Only entries that failed at or after this time. */
  readonly from?: Date;
  /** Only entries that failed before this time. */
  readonly to?: Date;
  /** Only entries of this kind. */
  readonly filter?: DeadLetterFilter;
}

/** What count() counts: entries that failed in a range and are of a kind; everything when empty. */
export type DeadLetterCountQuery = Omit<DeadLetterListQuery, 'limit' | 'beforeId'>;

export interface DeadLetterIndexOptions {
  /** Entries kept; adding beyond evicts the oldest (default 1000). */
  readonly maxEntries?: number;
  /** Entries per replay or purge transaction (default 100). */
  readonly batchSize?: number;
}

/** The filters this index uses, in MikroORM's query shape. */
interface EntryFilter {
  failedAt?: { $gte?: Date; $lt?: Date };
  errorCode?: string;
  originalTopic?: string;
  consumerGroup?: string;
  id?: { $lt?: number; $gt?: number; $lte?: number };
}

interface Plan {
  readonly total: number;
  readonly batches: AsyncIterable<readonly number[]>;
}

/**
 * The dead letters operators see (table dead_letters): at most `maxEntries`, newest kept. Replaying an
 * entry writes the original message to the outbox and deletes the entry in one transaction, so an
 * entry leaves the index exactly when its replay is certain to be published.
 */
export class DeadLetterIndex {
  readonly maxEntries: number;
  private readonly batchSize: number;

  constructor(
    private readonly orm: Orm,
    options: DeadLetterIndexOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_DEAD_LETTERS;
    this.batchSize = options.batchSize ?? DEAD_LETTER_BATCH_SIZE;
  }

  /**
   * Adds an entry unless the same message of the same consumer group is already there (a redelivered
   * dead letter, or the same event delivered again at another offset), then evicts the oldest entries beyond the limit, in one transaction.
   */
  async add(entry: NewDeadLetterEntry): Promise<{ readonly added: boolean; readonly evicted: number }> {
    return this.orm.em.fork().transactional((em) => this.addWithin(em, entry));
  }

  /** add() on the caller's transaction (the outbox relay moves a poison row and indexes it at once). */
  async addWithin(
    em: Orm['em'],
    entry: NewDeadLetterEntry,
  ): Promise<{ readonly added: boolean; readonly evicted: number }> {
    const inserted = await em.execute<QueryResult>(
      `insert into dead_letters (event_id, original_topic, original_partition, original_offset, original_part,
         message_key, payload, headers, consumer_group, error_code, error_message, attempts, failed_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())
       on conflict do nothing`,
      [
        entry.eventId,
        entry.originalTopic,
        entry.originalPartition,
        entry.originalOffset,
        entry.originalPart ?? '',
        entry.messageKey,
        entry.payload,
        JSON.stringify(entry.headers),
        entry.consumerGroup,
        entry.errorCode,
        entry.errorMessage,
        entry.attempts,
        entry.failedAt,
      ],
      'run',
    );
    // The report or backfill a dead letter belongs to counts it (the index itself forgets old entries).
    if (inserted.affectedRows > 0) {
      await countDeadLetterOnReport(em, entry.headers, entry.errorCode);
      await countDeadLetterOnBackfill(em, entry.headers);
    }
    // Ids grow with indexing order, so the oldest entries are the smallest ids.
    const evicted = await em.execute<QueryResult>(
      `delete from dead_letters where id in (select id from dead_letters order by id desc offset ?)`,
      [this.maxEntries],
      'run',
    );
    return { added: inserted.affectedRows > 0, evicted: evicted.affectedRows };
  }

  /** Entries in the index, or those a query matches. */
  async count(query: DeadLetterCountQuery = {}): Promise<number> {
    return this.orm.em.fork().count(DeadLetterEntry, entryFilter(query));
  }

  /** The kinds of failure in the index (code, topic, group) with their counts, largest first. */
  async kinds(): Promise<DeadLetterKind[]> {
    const rows = await this.orm.em
      .fork()
      .execute<{ error_code: string; original_topic: string; consumer_group: string; count: string }[]>(
        `select error_code, original_topic, consumer_group, count(*) as count from dead_letters
       group by error_code, original_topic, consumer_group
       order by count(*) desc, error_code, original_topic, consumer_group`,
      );
    return rows.map((row) => ({
      code: row.error_code,
      topic: row.original_topic,
      group: row.consumer_group,
      count: Number(row.count),
    }));
  }

  /** Entries newest first, without payloads. */
  async list(query: DeadLetterListQuery): Promise<DeadLetterSummary[]> {
    const where: EntryFilter = entryFilter(query);
    if (query.beforeId !== undefined) where.id = { $lt: query.beforeId };
    const rows = await this.orm.em.fork().find(DeadLetterEntry, where, {
      orderBy: { id: 'desc' },
      limit: query.limit,
      exclude: ['payload', 'headers'],
    });
    return rows.map(summary);
  }

  async get(id: number): Promise<DeadLetterRecord | undefined> {
    const row = await this.orm.em.fork().findOne(DeadLetterEntry, { id });
    return row ? record(row) : undefined;
  }

  /**
   * How many entries replay() or purge() would take now (a dry run); unknown ids in `{ids}` fail as
   * they would there.
   */
  async countSelected(selection: DeadLetterSelection): Promise<number> {
    return (await this.plan(selection)).total;
  }

  /**
   * Re-publishes the selected entries through the outbox: the original topic, key, bytes and headers,
   * plus `tp-replayed-from`. Each batch writes its outbox rows and deletes its entries in one
   * transaction. The outbox row gets a fresh event_id (the original may still be in the outbox); the
   * message keeps its original tp-event-id header. An unknown id in `{ids}` fails the whole call
   * before anything is replayed (404 DEAD_LETTER_NOT_FOUND).
   */
  async replay(selection: DeadLetterSelection, onProgress?: OnProgress): Promise<ReplayOutcome> {
    const plan = await this.plan(selection);
    let done = 0;
    let replayed = 0;
    const refused: { id: number; reason: string }[] = [];
    for await (const ids of plan.batches) {
      await this.orm.em.fork().transactional(async (em) => {
        const rows = await em.find(
          DeadLetterEntry,
          { id: { $in: [...ids] } },
          { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        const taken: number[] = [];
        for (const row of rows) {
          const key = outboxKey(row.messageKey);
          if (typeof key !== 'string' && key !== null) {
            refused.push({ id: row.id, reason: key.refused });
            continue;
          }
          em.create(OutboxMessage, {
            eventId: randomUUID(),
            eventType: (row.headers[HEADERS.eventType] ?? 'unknown').slice(0, 100),
            topic: row.originalTopic,
            messageKey: key,
            payload: Buffer.from(row.payload),
            headers: { ...row.headers, [REPLAYED_FROM_HEADER]: String(row.id) },
          });
          taken.push(row.id);
        }
        if (taken.length > 0) await em.nativeDelete(DeadLetterEntry, { id: { $in: taken } });
        await em.flush();
        replayed += taken.length;
      });
      done += ids.length;
      onProgress?.({ done, total: plan.total });
    }
    return { selected: plan.total, replayed, gone: plan.total - replayed - refused.length, refused };
  }

  /** Deletes the selected entries, a batch per transaction. Unknown ids in `{ids}` fail as in replay. */
  async purge(selection: DeadLetterSelection, onProgress?: OnProgress): Promise<PurgeOutcome> {
    const plan = await this.plan(selection);
    let done = 0;
    let purged = 0;
    for await (const ids of plan.batches) {
      purged += await this.orm.em.fork().nativeDelete(DeadLetterEntry, { id: { $in: [...ids] } });
      done += ids.length;
      onProgress?.({ done, total: plan.total });
    }
    return { selected: plan.total, purged, gone: plan.total - purged };
  }

  /**
   * How many entries a selection matches now, and their ids in batches. A range or `all` covers only
   * entries present at the start: a replayed message that fails again comes back as a new entry, and
   * must not be replayed again by the same call.
   */
  private async plan(selection: DeadLetterSelection): Promise<Plan> {
    const em = this.orm.em.fork();
    if ('ids' in selection) {
      const ids = [...new Set(selection.ids)].sort((a, b) => a - b);
      const found = new Set<number>();
      for (const chunk of chunks(ids, 1000)) {
        const rows = await em.find(DeadLetterEntry, { id: { $in: chunk } }, { fields: ['id'] });
        for (const row of rows) found.add(row.id);
      }
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new AppError(
          'DEAD_LETTER_NOT_FOUND',
          `no dead letter with id ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`,
          { ids: missing },
        );
      }
      return { total: ids.length, batches: iterate(chunks(ids, this.batchSize)) };
    }
    const filter: EntryFilter = entryFilter({
      ...('all' in selection ? {} : { from: selection.from, to: selection.to }),
      ...(selection.filter ? { filter: selection.filter } : {}),
    });
    const [last] = await em.find(DeadLetterEntry, {}, { orderBy: { id: 'desc' }, limit: 1, fields: ['id'] });
    if (!last) return { total: 0, batches: iterate([]) };
    const upTo = last.id;
    const total = await em.count(DeadLetterEntry, { ...filter, id: { $lte: upTo } });
    const batchSize = this.batchSize;
    async function* batches(): AsyncIterable<readonly number[]> {
      let after = 0;
      for (;;) {
        const rows = await em
          .fork()
          .find(
            DeadLetterEntry,
            { ...filter, id: { $gt: after, $lte: upTo } },
            { orderBy: { id: 'asc' }, limit: batchSize, fields: ['id'] },
          );
        if (rows.length === 0) return;
        const ids = rows.map((row) => row.id);
        after = ids[ids.length - 1] as number;
        yield ids;
      }
    }
    return { total, batches: batches() };
  }
}

function entryFilter({ from, to, filter }: DeadLetterCountQuery): EntryFilter {
  const where: EntryFilter = {};
  if (from && to) where.failedAt = { $gte: from, $lt: to };
  else if (from) where.failedAt = { $gte: from };
  else if (to) where.failedAt = { $lt: to };
  if (filter?.code !== undefined) where.errorCode = filter.code;
  if (filter?.topic !== undefined) where.originalTopic = filter.topic;
  if (filter?.group !== undefined) where.consumerGroup = filter.group;
  return where;
}

/** The key as the outbox stores it (text), or why it cannot be stored as it was. */
function outboxKey(key: Uint8Array | null | undefined): string | null | { refused: string } {
  if (!key) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(key);
  } catch {
    return { refused: 'the key is not UTF-8 text, which the outbox cannot carry' };
  }
  if (codePoints(text) > MAX_OUTBOX_KEY_CHARS) {
    return { refused: `the key is longer than the outbox's ${MAX_OUTBOX_KEY_CHARS} characters` };
  }
  return text;
}

/** The columns list() reads: all but the payload and headers. */
type SummaryRow = Pick<
  DeadLetterEntry,
  | 'id'
  | 'eventId'
  | 'originalTopic'
  | 'originalPartition'
  | 'originalOffset'
  | 'messageKey'
  | 'consumerGroup'
  | 'errorCode'
  | 'errorMessage'
  | 'attempts'
  | 'failedAt'
  | 'createdAt'
>;

function summary(row: SummaryRow): DeadLetterSummary {
  return {
    id: row.id,
    eventId: row.eventId ?? null,
    originalTopic: row.originalTopic,
    originalPartition: row.originalPartition,
    originalOffset: row.originalOffset,
    messageKey: row.messageKey ? Buffer.from(row.messageKey) : null,
    consumerGroup: row.consumerGroup,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
    attempts: row.attempts,
    failedAt: row.failedAt,
    createdAt: row.createdAt,
  };
}

function record(row: DeadLetterEntry): DeadLetterRecord {
  return {
    ...summary(row),
    payload: row.payload ? Buffer.from(row.payload) : Buffer.alloc(0),
    headers: row.headers ?? {},
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function* iterate<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}
