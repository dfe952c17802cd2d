import { describe, expect, it } from '@jest/globals';
import { Counter, Registry } from 'prom-client';

import { perRegistry } from './metrics.js';

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
