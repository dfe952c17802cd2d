import perfHooks from 'node:perf_hooks';

import { describe, expect, it, jest } from '@jest/globals';
import { Counter, Registry } from 'prom-client';

import { createMetrics, EVENT_LOOP_SAMPLE_MS, perRegistry } from './metrics.js';

const counterOf = perRegistry(
  (registry) => new Counter({ name: 'things_total', help: 'Things', registers: [registry] }),
);

describe('perRegistry', () => {
  it('makes the metrics once per registry, so a second consumer on the same registry shares them', () => {
    const registry = new Registry();
    expect(counterOf(registry)).toBe(counterOf(registry));
  });

  it('makes fresh metrics for another registry', async () => {
    const first = new Registry();
    const second = new Registry();
    counterOf(first).inc();
    expect(counterOf(second)).not.toBe(counterOf(first));
    expect((await counterOf(second).get()).values[0]?.value ?? 0).toBe(0);
  });
});

describe('createMetrics', () => {
  it('samples the event-loop delay every EVENT_LOOP_SAMPLE_MS (100 ms), not 100 times a second', async () => {
    const monitor = jest.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const registry = createMetrics('test');
      expect(monitor).toHaveBeenCalledWith({ resolution: EVENT_LOOP_SAMPLE_MS });
      expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
      // The lag metrics are still there, labelled with the service.
      const lag = await registry.getSingleMetricAsString('nodejs_eventloop_lag_p99_seconds');
      expect(lag).toContain('service="test"');
    } finally {
      monitor.mockRestore();
    }
  });
});
