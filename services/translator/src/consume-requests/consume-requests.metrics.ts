import { perRegistry } from '@tp/runtime';
import { Counter } from 'prom-client';

/** Counters of the engine consumers; dead letters are counted by the guard (pipeline_dead_letters_total). */
export interface ConsumeRequestsMetrics {
  /** TranslationCompleted published, by engine and whether the hot cache answered. */
  readonly completed: Counter<'engine' | 'cached'>;
  /** Requests put on the retry topic, by the attempt that failed. */
  readonly retried: Counter<'attempt'>;
}

/** One set per registry, however many consumers share it. */
export const consumeRequestsMetrics = perRegistry((registry): ConsumeRequestsMetrics => ({
  completed: new Counter({
    name: 'translation_requests_completed_total',
    help: 'Translation requests answered with a TranslationCompleted, by engine and cache hit',
    labelNames: ['engine', 'cached'] as const,
    registers: [registry],
  }),
  retried: new Counter({
    name: 'translation_requests_retried_total',
    help: 'Translation requests sent to the retry topic after every engine failed, by failed attempt',
    labelNames: ['attempt'] as const,
    registers: [registry],
  }),
}));
