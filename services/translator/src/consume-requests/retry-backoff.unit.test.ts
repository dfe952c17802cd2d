import { describe, expect, it } from '@jest/globals';

import { retryDelayMs } from './retry-backoff.js';

const settings = { baseMs: 1000, maxMs: 60_000 };
const lowest = () => 0;
const highest = () => 1;

describe('retry backoff', () => {
  it('waits the base after the first failure, then doubles per attempt', () => {
    expect([1, 2, 3, 4].map((failed) => retryDelayMs(failed, settings, highest))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
  });

  it('never waits less than half of the step, whatever the jitter', () => {
    expect([1, 2, 3].map((failed) => retryDelayMs(failed, settings, lowest))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(2, settings, () => 0.5)).toBe(1500);
  });

  it('is capped at the maximum, even after many attempts', () => {
    expect(retryDelayMs(7, settings, highest)).toBe(60_000);
    expect(retryDelayMs(1000, settings, highest)).toBe(60_000);
    expect(retryDelayMs(1000, settings, lowest)).toBe(30_000);
  });

  it('spreads the waits of requests that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(3, settings)));
    expect(delays.size).toBeGreaterThan(1);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(2000);
      expect(delay).toBeLessThanOrEqual(4000);
    }
  });
});
