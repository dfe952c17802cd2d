import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import type { BreakerState } from './resilience.js';

export type CallOutcome = 'ok' | 'failed' | 'breaker-open';

export interface ChainMetrics {
  /** `pair` is `source-target` when the engine's own list serves it, else `other` (bounded labels). */
  record(engine: string, outcome: CallOutcome, seconds: number, pair: string): void;
  /** One transition of an engine's breaker. */
  breakerChanged(engine: string, state: BreakerState): void;
}

const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * Per-engine Prometheus metrics: calls by outcome, call duration, the duration of successful calls
 * per language pair, breaker state (read at scrape time) and breaker transitions. Without a registry
 * nothing is recorded. Register one chain per registry: prom-client refuses
 * a second metric of the same name.
 */
export function chainMetrics(
  registry: Registry | undefined,
  breakers: () => ReadonlyArray<{ engine: string; state: BreakerState }>,
): ChainMetrics {
  if (!registry) return { record: () => undefined, breakerChanged: () => undefined };
  const calls = new Counter({
    name: 'translation_engine_calls_total',
    help: 'Engine attempts per text by engine and outcome (ok, failed, breaker-open)',
    labelNames: ['engine', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'translation_engine_call_duration_seconds',
    help: 'Time one engine spent per text (all its chunks and retries; the texts of a call share its time) by engine and outcome',
    labelNames: ['engine', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const pairDuration = new Histogram({
    name: 'translation_engine_pair_duration_seconds',
    help: 'Time one engine spent per text it translated (the texts of a call share its time), by engine and pair (other: a pair the engine does not list)',
    labelNames: ['engine', 'pair'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const transitions = new Counter({
    name: 'translation_engine_breaker_transitions_total',
    help: 'Circuit breaker transitions per engine, by the state entered (closed, half-open, open)',
    labelNames: ['engine', 'state'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'translation_engine_breaker_state',
    help: 'Circuit breaker state per engine: 0 closed, 1 half-open, 2 open',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      for (const { engine, state } of breakers()) this.set({ engine }, BREAKER_VALUE[state]);
    },
  });
  return {
    record(engine, outcome, seconds, pair) {
      calls.inc({ engine, outcome });
      duration.observe({ engine, outcome }, seconds);
      if (outcome === 'ok') pairDuration.observe({ engine, pair }, seconds);
    },
    breakerChanged(engine, state) {
      transitions.inc({ engine, state });
    },
  };
}
