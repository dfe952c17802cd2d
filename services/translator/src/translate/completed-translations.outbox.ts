import type { TranslationCompletedData } from '@tp/contracts';
import { addToOutbox, type Orm } from '@tp/db';
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
}

/**
 * Writes each completed translation to the Postgres outbox as a TranslationCompleted event, in its
 * own transaction, after the answer is decided. A failed write is logged and counted, never thrown:
 * persistence is asynchronous by the spec, and the client already has its translation. `drain()`
 * waits for writes in flight, so a graceful stop loses none.
 */
export class CompletedTranslationsOutbox implements CompletedTranslationSink {
  private readonly inFlight = new Set<Promise<void>>();
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
    const write = this.write(completed, origin).finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async write(completed: CompletedTranslation, origin: EventOrigin): Promise<void> {
    try {
      const entry = translationCompletedEntry(
        freeTextCompletedData(completed),
        this.options.topicPrefix,
        origin,
      );
      await this.options.orm.em.fork().transactional(async (em) => {
        addToOutbox(em, this.options.codec, [entry]);
      });
      this.written?.inc();
    } catch (err) {
      this.failures?.inc();
      this.options.logger.error(
        { err, correlation_id: origin.correlationId, engine: completed.engine },
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
    freeTextField(hotCacheHash({ source, target, text }), text),
    completed,
    Date.now(),
  );
}
