import type { DeadLetterIndex } from '@tp/pipeline';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface DeadLetterMetrics {
  readonly indexed: Counter;
  readonly evicted: Counter;
  readonly unreadable: Counter;
}

/**
 * Counters of the indexer, and a gauge of the index size read at scrape time (one count over at most
 * DEAD_LETTER_MAX_ENTRIES rows; the last value stays when Postgres cannot answer).
 */
export function deadLetterMetrics(registry: Registry, index: DeadLetterIndex): DeadLetterMetrics {
  let size = 0;
  new Gauge({
    name: 'dead_letters_index_size',
    help: 'Entries in the dead-letter index (Postgres dead_letters)',
    registers: [registry],
    async collect() {
      size = await index.count().catch(() => size);
      this.set(size);
    },
  });
  return {
    indexed: new Counter({
      name: 'dead_letters_indexed_total',
      help: 'Dead letters added to the index (a redelivered one is not counted again)',
      registers: [registry],
    }),
    evicted: new Counter({
      name: 'dead_letters_evicted_total',
      help: 'Oldest entries evicted from the dead-letter index to keep it at DEAD_LETTER_MAX_ENTRIES',
      registers: [registry],
    }),
    unreadable: new Counter({
      name: 'dead_letters_unreadable_total',
      help: 'Messages on the dead-letter topic that are not DeadLetter events; skipped and logged',
      registers: [registry],
    }),
  };
}
