import { describe, expect, it } from '@jest/globals';

import { percentile, summarize } from './latency-samples.js';

describe('percentiles of pooled latency samples', () => {
  it('takes the nearest rank: the p99 of 1..1000 is the 990th value', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => 1000 - i); // unsorted on purpose
    expect(percentile(samples, 99)).toBe(990);
    expect(percentile(samples, 50)).toBe(500);
    expect(percentile(samples, 100)).toBe(1000);
  });

  it('rounds the rank up, so a p99 of 150 samples is the second slowest', () => {
    const samples = Array.from({ length: 150 }, (_, i) => i + 1);
    expect(percentile(samples, 99)).toBe(149);
  });

  it('sorts numerically, not as strings, and keeps fractions', () => {
    expect(percentile([10.5, 9.25, 100.125, 2], 50)).toBe(9.25);
    expect(percentile([10.5, 9.25, 100.125, 2], 99)).toBe(100.125);
  });

  it('gives the smallest sample at the lowest percent and NaN for no samples', () => {
    expect(percentile([3, 1, 2], 0)).toBe(1);
    expect(percentile([], 99)).toBeNaN();
  });

  it("leaves the caller's samples in their order", () => {
    const samples = [3, 1, 2];
    summarize(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it('summarizes count, p50, p90 and p99', () => {
    const samples = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(summarize(samples)).toEqual({ count: 200, p50: 100, p90: 180, p99: 198 });
  });
});
