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

describe('the default retry schedule', () => {
  it('rides out an outage of every engine for an hour, even with every wait at its shortest', async () => {
    const { loadTranslatorConfig } = await import('../config.js');
    const config = loadTranslatorConfig({});
    const backoff = {
      baseMs: config.TRANSLATION_RETRY_BACKOFF_MS,
      maxMs: config.TRANSLATION_RETRY_MAX_BACKOFF_MS,
    };
    let shortestTotal = 0;
    // Attempt n fails, then waits before attempt n + 1; the last attempt's failure dead-letters.
    for (let failed = 1; failed < config.TRANSLATION_MAX_ATTEMPTS; failed++) {
      shortestTotal += retryDelayMs(failed, backoff, lowest);
    }
    expect(shortestTotal).toBeGreaterThanOrEqual(60 * 60 * 1000);
    // And no single wait is longer than the cap: a recovered engine is tried again within 5 minutes.
    expect(retryDelayMs(config.TRANSLATION_MAX_ATTEMPTS, backoff, highest)).toBeLessThanOrEqual(300_000);
  });
});
