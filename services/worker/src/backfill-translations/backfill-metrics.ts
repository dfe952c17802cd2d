import { perRegistry } from '@tp/runtime';
import { Counter, Gauge, type Registry } from 'prom-client';

import type { StepOutcome } from './backfill-step.js';

export interface BackfillMetrics {
  /** Sets the language's gauges from a step's measures and counts its requests. */
  record(language: string, outcome: StepOutcome): void;
}

/**
 * translation_backfill_fields{language,state}: done, failed, in_flight and remaining field
 * translations of the language's latest stepped backfill; translation_backfill_requested_total: its
 * requests (rate() of it is the backfill's pace). The language label is bounded by the configuration.
 */
export const backfillMetrics = perRegistry((registry: Registry): BackfillMetrics => {
  const fields = new Gauge({
    name: 'translation_backfill_fields',
    help: 'Field translations of the running backfill of a language, by state (done, failed, in_flight, remaining)',
    labelNames: ['language', 'state'] as const,
    registers: [registry],
  });
  const requested = new Counter({
    name: 'translation_backfill_requested_total',
    help: 'Field translations backfills requested (TranslationRequested fields written to the outbox)',
    labelNames: ['language'] as const,
    registers: [registry],
  });
  return {
    record(language, outcome) {
      fields.set({ language, state: 'done' }, outcome.done);
      fields.set({ language, state: 'failed' }, outcome.failed);
      fields.set({ language, state: 'in_flight' }, outcome.finished ? 0 : outcome.inFlight);
      fields.set({ language, state: 'remaining' }, outcome.finished ? 0 : outcome.remaining);
      if (outcome.requested > 0) requested.inc({ language }, outcome.requested);
    },
  };
});
