import type { TranslationCompletedData } from '@tp/contracts';
import { encodeOutboxRow, insertOutboxRows, type EncodedOutboxRow, type Orm } from '@tp/db';
import {
  freeTextField,
  translationCompletedData,
  translationCompletedEntry,
  type TranslationOutcome,
} from '@tp/pipeline';
import type { Logger } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import { hotCacheHash } from '@tp/translation';
import { Counter, type Registry } from 'prom-client';

/** A translation the chain produced (never a cache hit), as the outbox event needs it. */
export interface CompletedTranslation extends TranslationOutcome {
  readonly text: string;
}

export interface EventOrigin {
  readonly correlationId: string;
  /** The request id: the direct cause of the event. */
  readonly causationId: string;
}

/** Where translations go to be kept: the outbox, then Kafka, then content_translations. */
export interface CompletedTranslationSink {
  /** Starts writing and returns at once: the answer to the client does not wait for Postgres. */
  record(completed: CompletedTranslation, origin: EventOrigin): void;
}

export interface OutboxSinkOptions {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  readonly logger: Logger;
  readonly metrics?: Registry;
  /**
   * How long the first row recorded while nothing is written waits for others before its INSERT
   * (like Kafka's linger.ms): 0 writes at once. Rows held this long are lost on a SIGKILL.
   */
  readonly lingerMs?: number;
}

/** Most rows one INSERT carries. */
const MAX_ROWS_PER_WRITE = 200;

/** A row waiting to be written, with what its failure is logged with. */
interface QueuedRow {
  readonly row: EncodedOutboxRow;
  readonly origin: EventOrigin;
  readonly engine: string;
}

/**
 * Writes completed translations to the Postgres outbox as TranslationCompleted events, after the
 * answer is decided, by group commit: one INSERT at a time, carrying every row recorded while the
 * previous one ran (so one row when idle, and one statement for many under load instead of a
 * transaction each: bench:apertium). With `lingerMs`, the first row waits that long for others, so
 * at low rates too a statement, the relay's batch and the projection's carry several rows rather
 * than one each (docs/decisions.md, "The hot cache, coalescing and free-text persistence"). A failed write is
 * logged and counted, never thrown: persistence is asynchronous by the spec, and the client already
 * has its translation. `drain()` ends the linger and waits for the rows recorded so far, so a
 * graceful stop loses none.
 */
export class CompletedTranslationsOutbox implements CompletedTranslationSink {
  private readonly queue: QueuedRow[] = [];
  private writing: Promise<void> | undefined;
  private lingering: ReturnType<typeof setTimeout> | undefined;
  private readonly failures?: Counter;
  private readonly written?: Counter;

  constructor(private readonly options: OutboxSinkOptions) {
    if (options.metrics) {
      this.written = new Counter({
        name: 'translation_outbox_writes_total',
        help: 'Completed translations written to the outbox',
        registers: [options.metrics],
      });
      this.failures = new Counter({
        name: 'translation_outbox_failures_total',
        help: 'Completed translations that could not be written to the outbox (logged; the request succeeded)',
        registers: [options.metrics],
      });
    }
  }

  record(completed: CompletedTranslation, origin: EventOrigin): void {
    try {
      // Encoded now, in the request's trace context, which the event's headers carry on.
      const entry = translationCompletedEntry(
        freeTextCompletedData(completed),
        this.options.topicPrefix,
        origin,
      );
      this.queue.push({ row: encodeOutboxRow(this.options.codec, entry), origin, engine: completed.engine });
    } catch (err) {
      this.failed([{ origin, engine: completed.engine }], err);
      return;
    }
    this.schedule();
  }

  async drain(): Promise<void> {
    this.writeNow();
    while (this.writing) await this.writing;
  }

  /**
   * Starts the write of the queue after the linger, or now when a statement's worth is queued. Rows
   * recorded while a write runs go with the next statement of that write (writeQueued) anyway.
   */
  private schedule(): void {
    if (this.writing) return;
    const lingerMs = this.options.lingerMs ?? 0;
    if (lingerMs === 0 || this.queue.length >= MAX_ROWS_PER_WRITE) return this.writeNow();
    this.lingering ??= setTimeout(() => this.writeNow(), lingerMs);
  }

  private writeNow(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.queue.length > 0) this.writing ??= this.writeQueued();
  }

  /** Writes the queue, a batch at a time, until it is empty. */
  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_ROWS_PER_WRITE);
      try {
        // One statement, so no transaction: the rows commit together or not at all.
        await insertOutboxRows(
          this.options.orm.em.fork(),
          batch.map(({ row }) => row),
        );
        this.written?.inc(batch.length);
      } catch (err) {
        this.failed(batch, err);
      }
    }
    this.writing = undefined;
  }

  private failed(rows: readonly Pick<QueuedRow, 'origin' | 'engine'>[], err: unknown): void {
    this.failures?.inc(rows.length);
    for (const { origin, engine } of rows) {
      this.options.logger.error(
        { err, correlation_id: origin.correlationId, engine },
        'could not write a completed translation to the outbox; it is translated but not persisted',
      );
    }
  }
}

/**
 * Free text is filed under the hot cache hash of (source, target, text) as its entity id: the same
 * text translated again lands on the same content_translations row. No request precedes a free
 * text's result, so the latest result for a text is the one kept.
 */
function freeTextCompletedData(completed: CompletedTranslation): TranslationCompletedData {
  const { source, target, text } = completed;
  return translationCompletedData(
    [{ field: freeTextField(hotCacheHash({ source, target, text }), text), outcome: completed }],
    Date.now(),
  );
}
