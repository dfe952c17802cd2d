import { FREE_TEXT_ENTITY_TYPE } from '@tp/contracts';
import { withSpan } from '@tp/runtime';
import type { IncomingMessage } from '@tp/kafka';
import { PermanentError } from '@tp/pipeline';
import type { EventCodec } from '@tp/schemas';
import { perRegistry } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

import type { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { translationRows } from './translation-row.js';
import type { TranslationWriter } from './translation-writer.js';

export interface TranslationCompletedHandlerOptions {
  readonly codec: EventCodec;
  readonly writer: TranslationWriter;
  readonly cache: ReadCacheInvalidator;
  readonly metrics?: Registry;
}

interface ProjectionCounters {
  readonly written: Counter;
  readonly ignored: Counter;
}

const projectionCounters = perRegistry((registry): ProjectionCounters => ({
  written: new Counter({
    name: 'projection_rows_written_total',
    help: 'content_translations rows inserted or updated from TranslationCompleted',
    registers: [registry],
  }),
  ignored: new Counter({
    name: 'projection_results_ignored_total',
    help: 'TranslationCompleted results that changed nothing: a newer source version is stored, or the event was already applied',
    registers: [registry],
  }),
}));

/**
 * TranslationCompleted -> content_translations (version-guarded upsert of its results, one row per
 * field, in one statement with the rows of the messages handled at the same time), then the entity's read cache
 * is dropped (a reported entity's; free text has none). Idempotent: a redelivered event, or a result for an older source version, writes
 * nothing.
 */
export class TranslationCompletedHandler {
  private readonly counters?: ProjectionCounters;

  constructor(private readonly options: TranslationCompletedHandlerOptions) {
    if (options.metrics) this.counters = projectionCounters(options.metrics);
  }

  readonly handle = async (message: IncomingMessage): Promise<void> => {
    const event = this.options.codec.decode(message.value, message.headers);
    if (event.eventType !== 'TranslationCompleted') {
      throw new PermanentError(
        'UNEXPECTED_EVENT_TYPE',
        `${event.eventType} on the TranslationCompleted topic`,
      );
    }
    const rows = translationRows(event);
    const { entityType, entityId } = event.data;
    const attributes = { 'tp.entity_type': entityType, 'tp.entity_id': entityId, 'tp.fields': rows.length };
    const outcomes = await withSpan('projection write', attributes, async (span) => {
      const written = await this.options.writer.writeAll(rows);
      span.setAttribute('tp.written', written.filter((outcome) => outcome === 'written').length);
      return written;
    });
    const written = outcomes.filter((outcome) => outcome === 'written').length;
    this.counters?.written.inc(written);
    this.counters?.ignored.inc(outcomes.length - written);
    // Free text has no merged view to drop: the read cache holds views of reported entities only
    // (built from source_contents, where no row of its type can be), so its DEL deleted nothing.
    if (entityType === FREE_TEXT_ENTITY_TYPE) return;
    // Also after an ignored write: a redelivery may follow a crash between the write and this delete.
    await this.options.cache.invalidate(entityType, entityId);
  };
}
