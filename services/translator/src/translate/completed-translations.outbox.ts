import type { TranslationCompletedData } from '@tp/contracts';
import { encodeOutboxRow, insertOutboxRows, type EncodedOutboxRow, type Orm } from '@tp/db';
import {
  freeTextField,
  MAX_REQUEST_FIELDS,
  MAX_REQUEST_TEXT_BYTES,
  translationCompletedData,
  translationCompletedEntry,
  type TranslationOutcome,
} from '@tp/pipeline';
import { activeContext, inContext, type Context, type Logger } from '@tp/runtime';
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
  /**
   * Starts writing the translations one request produced and returns at once: the answer to the
   * client does not wait for Postgres.
   */
  record(completed: readonly CompletedTranslation[], origin: EventOrigin): void;
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

/**
 * Most requests' translations one INSERT carries: a request's are one row per pair, more only past
 * MAX_REQUEST_FIELDS texts or MAX_EVENT_TEXT_BYTES of text.
 */
const MAX_REQUESTS_PER_WRITE = 200;

/**
 * Most bytes of translated text one event carries: a content request's bound on its results (four
 * bytes of result per byte of source at most), so free text's events stay as far below a topic's
 * limit. A longer translation travels alone.
 */
const MAX_EVENT_TEXT_BYTES = 4 * MAX_REQUEST_TEXT_BYTES;

const UNKEEPABLE = 'the translation contains U+0000, which the store cannot hold';

/** A request's translations waiting to be written, with the trace context and time they came in. */
interface Recorded {
  readonly completed: readonly CompletedTranslation[];
  readonly origin: EventOrigin;
  readonly context: Context;
  readonly at: number;
}

/** A row ready to be written, with what its failure is logged with. */
interface QueuedRow {
  readonly row: EncodedOutboxRow;
  readonly origin: EventOrigin;
  /** The translations the row's event carries. */
  readonly count: number;
}

/**
 * Writes completed translations to the Postgres outbox as TranslationCompleted events, after the
 * answer is decided: one event for a request's translations of one pair (up to MAX_REQUEST_FIELDS
 * of them and MAX_EVENT_TEXT_BYTES of text), each text its own entity, so a batch of texts is one
 * row, one Kafka message and one message for the projection rather than one per text. By group
 * commit: one INSERT at a time, carrying every row recorded while the previous one ran (so one row
 * when idle, and one statement for many under load instead of a transaction each: bench:apertium).
 * With `lingerMs`, the first row waits that long for others, so at low rates too a statement, the
 * relay's batch and the projection's carry several rows rather than one each (docs/decisions.md,
 * "The hot cache, coalescing and free-text persistence"). A failed write is logged and counted,
 * never thrown: persistence is asynchronous by the spec, and the client already has its
 * translation. Events are encoded when written, not when recorded: off the answer's path, in the
 * trace context and with the time of the request. `drain()` ends the linger and waits for the rows
 * recorded so far, so a graceful stop loses none.
 */
export class CompletedTranslationsOutbox implements CompletedTranslationSink {
  private readonly recorded: Recorded[] = [];
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

  record(completed: readonly CompletedTranslation[], origin: EventOrigin): void {
    // Encoded when written, off the answer's path, in the request's trace context (kept here), which
    // the event's headers carry on.
    this.recorded.push({ completed, origin, context: activeContext(), at: Date.now() });
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
    if (lingerMs === 0 || this.recorded.length >= MAX_REQUESTS_PER_WRITE) return this.writeNow();
    this.lingering ??= setTimeout(() => this.writeNow(), lingerMs);
  }

  private writeNow(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.recorded.length > 0) this.writing ??= this.writeQueued();
  }

  /** Writes what was recorded, a batch at a time, until nothing is left. */
  private async writeQueued(): Promise<void> {
    while (this.recorded.length > 0) {
      const batch = this.recorded
        .splice(0, MAX_REQUESTS_PER_WRITE)
        .flatMap((recorded) => this.rows(recorded));
      if (batch.length === 0) continue;
      try {
        // One statement, so no transaction: the rows commit together or not at all.
        await insertOutboxRows(
          this.options.orm.em.fork(),
          batch.map(({ row }) => row),
        );
        this.written?.inc(batch.reduce((sum, { count }) => sum + count, 0));
      } catch (err) {
        this.failed(batch, err);
      }
    }
    this.writing = undefined;
  }

  /** The rows of a request's translations: one event per group, each encoded in the request's context. */
  private rows({ completed, origin, context, at }: Recorded): QueuedRow[] {
    // Postgres text cannot hold U+0000, so the projection would refuse the event: such a translation
    // is left out (logged and counted), and the request's others are kept.
    const keepable = completed.filter((item) => !item.translatedText.includes('\u0000'));
    if (keepable.length < completed.length) {
      this.failed([{ origin, count: completed.length - keepable.length }], new Error(UNKEEPABLE));
    }
    return eventGroups(keepable).flatMap((group) => {
      try {
        const row = inContext(context, () =>
          encodeOutboxRow(
            this.options.codec,
            translationCompletedEntry(freeTextCompletedData(group, at), this.options.topicPrefix, origin),
          ),
        );
        return [{ row, origin, count: group.length }];
      } catch (err) {
        this.failed([{ origin, count: group.length }], err);
        return [];
      }
    });
  }

  private failed(rows: readonly Pick<QueuedRow, 'origin' | 'count'>[], err: unknown): void {
    for (const { origin, count } of rows) {
      this.failures?.inc(count);
      this.options.logger.error(
        { err, correlation_id: origin.correlationId, translations: count },
        'could not write completed translations to the outbox; they are translated but not persisted',
      );
    }
  }
}

/**
 * Free text is filed under the hot cache hash of (source, target, text) as its entity id: the same
 * text translated again lands on the same content_translations row. No request precedes a free
 * text's result, so the latest result for a text is the one kept.
 */
function freeTextCompletedData(group: readonly CompletedTranslation[], at: number): TranslationCompletedData {
  const [first, ...more] = group.map((completed) => {
    const { source, target, text } = completed;
    return { field: freeTextField(hotCacheHash({ source, target, text }), text), outcome: completed };
  });
  if (!first) throw new Error('an event carries at least one translation');
  return translationCompletedData([first, ...more], at);
}

/**
 * A request's translations as the events that carry them: one per pair (an event's results share
 * it), split at MAX_REQUEST_FIELDS translations or MAX_EVENT_TEXT_BYTES bytes of translated text.
 */
function eventGroups(completed: readonly CompletedTranslation[]): CompletedTranslation[][] {
  const open = new Map<string, { items: CompletedTranslation[]; bytes: number }>();
  const groups: CompletedTranslation[][] = [];
  for (const item of completed) {
    const pair = `${item.source}\u0000${item.target}`;
    const bytes = Buffer.byteLength(item.translatedText);
    let group = open.get(pair);
    if (!group || group.items.length >= MAX_REQUEST_FIELDS || group.bytes + bytes > MAX_EVENT_TEXT_BYTES) {
      group = { items: [], bytes: 0 };
      open.set(pair, group);
      groups.push(group.items);
    }
    group.items.push(item);
    group.bytes += bytes;
  }
  return groups;
}
