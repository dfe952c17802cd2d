import { setTimeout as sleep } from 'node:timers/promises';

import {
  anyUnpublished,
  deleteOutboxRows,
  lockUnpublishedBatch,
  OutboxMessage,
  recordOutboxFailure,
  type Orm,
} from '@tp/db';
import {
  isRecordRefusal,
  MessageTooLargeError,
  type KafkaProducer,
  type OutgoingMessage,
  type TopicMessages,
} from '@tp/kafka';
import { deadLetterCounter, type DeadLetterIndex } from '@tp/pipeline';
import { contextFromHeaders, linkTo, withSpan, type Logger } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

import {
  byTopic,
  RELAY_DEAD_LETTER_GROUP,
  rowDeadLetter,
  rowMessage,
  rowTraceHeaders,
  type OutboxRow,
  type RowFailure,
} from './outbox-rows.js';

export interface OutboxRelayOptions {
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly retentionMs: number;
  readonly logger: Logger;
  /** Where rows that can never be published go (the dead-letter index, in the relay's transaction). */
  readonly deadLetters: DeadLetterIndex;
  readonly metrics?: Registry;
}

/** What the relay needs of a producer (KafkaProducer). */
export type RelayProducer = Pick<KafkaProducer, 'sendBatch' | 'checkFits'>;

const MAX_BACKOFF_MS = 5000;
const PURGE_EVERY_MS = 10 * 60 * 1000;
/** One relay at a time per database: every worker tries for this lock at each batch. */
const RELAY_LOCK = 'tp.outbox-relay';

interface Sendable {
  readonly row: OutboxRow;
  readonly message: OutgoingMessage;
}

/** What one batch did: rows published, rows moved to the dead letters, rows that wait for a retry. */
interface BatchOutcome {
  published: string[];
  poison: { row: OutboxRow; failure: RowFailure }[];
  waiting?: { rows: OutboxRow[]; error: unknown };
}

/**
 * Publishes outbox rows in id order and deletes them, in one transaction per batch: rows are locked
 * (FOR UPDATE SKIP LOCKED), sent with the idempotent producer, then deleted. A crash between send and
 * commit leaves the rows in place, so they are sent again: duplicates are possible, loss is not.
 * Consumers are idempotent (event ids, version-guarded upserts).
 *
 * Only one relay publishes at a time (a transaction-scoped advisory lock, tried at each batch): with
 * several workers, the others stand by, so one key's rows are never sent by two relays at once and
 * out of order. A row that can never be published (headers that are no message, a message larger than
 * its topic takes, or one the broker refuses) is moved to the dead letters, and the rows behind it go
 * on. A failed send deletes the rows it acknowledged, writes `attempts` and `last_error` on the rest and
 * backs off; those wait, in order, for the next batch.
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wake = new AbortController();
  private readonly published?: Counter;
  private readonly failures?: Counter;
  private readonly deadLettered?: Counter<'group' | 'code'>;
  private lastPurge = 0;

  constructor(
    private readonly orm: Orm,
    private readonly producer: RelayProducer,
    private readonly options: OutboxRelayOptions,
  ) {
    if (options.metrics) {
      this.published = new Counter({
        name: 'outbox_published_total',
        help: 'Outbox messages published to Kafka',
        registers: [options.metrics],
      });
      this.failures = new Counter({
        name: 'outbox_relay_failures_total',
        help: 'Relay batches that failed and will be retried',
        registers: [options.metrics],
      });
      this.deadLettered = deadLetterCounter(options.metrics);
    }
  }

  /**
   * Publishes one batch; returns how many rows it published (0 also while another relay holds the
   * lock). Throws, after recording it on the rows, when a send failed.
   */
  async relayOnce(): Promise<number> {
    // Most polls of a quiet outbox find nothing: one statement says so, without the transaction and
    // the lock (three statements). A row written just after is the next poll's, as it would be anyway.
    if (!(await anyUnpublished(this.orm.em.fork()))) return 0;
    const outcome = await this.orm.em.fork().transactional(async (tx) => {
      const rows = await lockUnpublishedBatch(tx, RELAY_LOCK, this.options.batchSize);
      if (rows.length === 0) return undefined;
      // One span per batch, linked to the trace of each row (their `send` spans are the rows' children).
      const links = rows.flatMap((row) => linkTo(contextFromHeaders(rowTraceHeaders(row))));
      const result = await withSpan(
        'outbox relay',
        { 'tp.outbox.rows': rows.length },
        () => this.publish(rows),
        {
          links,
        },
      );
      await this.record(tx, result);
      return result;
    });
    if (!outcome) return 0;
    this.published?.inc(outcome.published.length);
    for (const { row, failure } of outcome.poison) {
      this.deadLettered?.inc({ group: RELAY_DEAD_LETTER_GROUP, code: failure.code });
      this.options.logger.warn(
        { outbox_id: row.id, topic: row.topic, code: failure.code, err: failure.message },
        'outbox row moved to the dead letters',
      );
    }
    if (outcome.waiting) throw outcome.waiting.error;
    return outcome.published.length;
  }
  /**
   * Deletes rows an older release marked published (it kept them for the retention) once they are
   * older than it; returns how many. This relay deletes what it publishes.
   */
  async purgePublished(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - this.options.retentionMs);
    return this.orm.em.fork().nativeDelete(OutboxMessage, { publishedAt: { $lt: cutoff } });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Lets the batch in hand finish (so its rows are deleted), then returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake.abort();
    await this.loop;
  }

  /**
   * Sends the rows that make messages that fit; says what became of each row. A row whose topic's
   * limit cannot be read (the cluster is unreachable, the topic missing) waits, with every row after it.
   */
  private async publish(rows: readonly OutboxRow[]): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { published: [], poison: [] };
    const { verdicts, heldFrom } = await this.check(rows);
    const sendable: Sendable[] = [];
    for (const [i, row] of rows.slice(0, heldFrom?.index).entries()) {
      const verdict = verdicts[i] as OutgoingMessage | RowFailure;
      if ('value' in verdict) sendable.push({ row, message: verdict });
      else outcome.poison.push({ row, failure: verdict });
    }
    await this.send(sendable, outcome);
    if (heldFrom) {
      outcome.waiting = {
        rows: [...(outcome.waiting?.rows ?? []), ...rows.slice(heldFrom.index)],
        error: outcome.waiting?.error ?? heldFrom.error,
      };
    }
    return outcome;
  }

  /**
   * Each row's message, or why it can never be published, and the first row whose topic's limit
   * could not be read (it waits, with every row after it). The messages of a topic are checked
   * against its limit together (one await per topic, not three per row); only a topic with a message
   * too large is checked again row by row, to tell which.
   */
  private async check(rows: readonly OutboxRow[]): Promise<{
    verdicts: (OutgoingMessage | RowFailure)[];
    heldFrom?: { index: number; error: unknown };
  }> {
    const verdicts = rows.map(rowMessage);
    const byTopic = new Map<string, number[]>();
    rows.forEach(({ topic }, i) => {
      if (!('value' in (verdicts[i] as OutgoingMessage | RowFailure))) return;
      const indexes = byTopic.get(topic);
      if (indexes) indexes.push(i);
      else byTopic.set(topic, [i]);
    });
    let heldFrom: { index: number; error: unknown } | undefined;
    for (const [topic, indexes] of byTopic) {
      const failure = await this.checkTopic(topic, indexes, verdicts);
      if (failure && (heldFrom === undefined || failure.index < heldFrom.index)) heldFrom = failure;
    }
    return { verdicts, ...(heldFrom ? { heldFrom } : {}) };
  }

  /** Marks the messages of `topic` too large for it; returns the first index held when its limit is unknown. */
  private async checkTopic(
    topic: string,
    indexes: readonly number[],
    verdicts: (OutgoingMessage | RowFailure)[],
  ): Promise<{ index: number; error: unknown } | undefined> {
    const messageAt = (i: number) => verdicts[i] as OutgoingMessage;
    try {
      await this.producer.checkFits(topic, indexes.map(messageAt));
      return undefined;
    } catch (err) {
      if (!(err instanceof MessageTooLargeError)) return { index: indexes[0] as number, error: err };
    }
    for (const i of indexes) {
      try {
        await this.producer.checkFits(topic, [messageAt(i)]);
      } catch (err) {
        if (!(err instanceof MessageTooLargeError)) return { index: i, error: err };
        verdicts[i] = { code: 'OUTBOX_MESSAGE_TOO_LARGE', message: err.message };
      }
    }
    return undefined;
  }

  private async send(sendable: readonly Sendable[], outcome: BatchOutcome): Promise<void> {
    const rowOf = new Map(sendable.map((s) => [s.message, s.row]));
    const acknowledged = (request: readonly TopicMessages[]) => {
      for (const { messages } of request) for (const m of messages) outcome.published.push(rowOf.get(m)!.id);
    };
    try {
      await this.producer.sendBatch(byTopic(sendable), acknowledged);
    } catch (err) {
      const done = new Set(outcome.published);
      const rest = sendable.filter((s) => !done.has(s.row.id));
      if (!isRecordRefusal(err)) outcome.waiting = { rows: rest.map((s) => s.row), error: err };
      // The broker refused records of the batch: find which, row by row.
      else await this.oneByOne(rest, outcome, acknowledged);
    }
  }

  private async oneByOne(
    rows: readonly Sendable[],
    outcome: BatchOutcome,
    acknowledged: (request: readonly TopicMessages[]) => void,
  ): Promise<void> {
    for (const [i, { row, message }] of rows.entries()) {
      try {
        await this.producer.sendBatch([{ topic: row.topic, messages: [message] }], acknowledged);
      } catch (err) {
        if (isRecordRefusal(err)) {
          const code =
            err instanceof MessageTooLargeError ? 'OUTBOX_MESSAGE_TOO_LARGE' : 'OUTBOX_MESSAGE_REFUSED';
          outcome.poison.push({ row, failure: { code, message: errorText(err) } });
          continue;
        }
        outcome.waiting = { rows: rows.slice(i).map((s) => s.row), error: err };
        return;
      }
    }
  }

  /** Deletes what was published, moves the poison rows to the dead letters, notes the failure on the rest. */
  private async record(tx: Orm['em'], { published, poison, waiting }: BatchOutcome): Promise<void> {
    await deleteOutboxRows(tx, published);
    for (const { row, failure } of poison) {
      await this.options.deadLetters.addWithin(tx, rowDeadLetter(row, failure));
      await deleteOutboxRows(tx, [row.id]);
    }
    if (waiting) {
      const ids = waiting.rows.map((r) => r.id);
      await recordOutboxFailure(tx, ids, errorText(waiting.error).slice(0, 2000));
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let published = 0;
      try {
        published = await this.relayOnce();
        failures = 0;
        if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
          this.lastPurge = Date.now();
          await this.purgePublished();
        }
      } catch (err) {
        failures++;
        this.failures?.inc();
        this.options.logger.warn({ err, failures }, 'outbox relay batch failed; retrying');
      }
      if (published === this.options.batchSize) continue;
      const delay = failures
        ? Math.min(this.options.pollIntervalMs * 2 ** failures, MAX_BACKOFF_MS)
        : this.options.pollIntervalMs;
      await sleep(delay, undefined, { signal: this.wake.signal }).catch(() => undefined);
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
