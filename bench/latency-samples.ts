// Latency samples kept whole, for percentiles over every request of several rounds. autocannon's own
// figures are per run and come from an HDR histogram of whole milliseconds; a p99 difference of 5 ms
// judged on those is judged in steps of 1 ms, from the few requests a short round holds.

/**
 * The nearest-rank percentile (the smallest sample with at least `percent` % of the samples at or
 * below it) of unsorted samples; NaN when there are none.
 */
export function percentile(samples: readonly number[], percent: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Summary of pooled samples: how many, and their p50, p90 and p99 in ms. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
  };
}
