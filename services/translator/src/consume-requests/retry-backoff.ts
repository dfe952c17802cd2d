export interface BackoffSettings {
  /** Wait before the second attempt. */
  readonly baseMs: number;
  /** Longest wait between two attempts. */
  readonly maxMs: number;
}

/**
 * How long to wait after attempt `failed` (1 = the first try) before the next one: the base doubled
 * per earlier retry, capped, with "equal jitter" (a random point in the upper half), so requests that
 * failed together do not all come back in the same millisecond and no wait is shorter than half
 * its step. `random` is injectable for tests.
 */
export function retryDelayMs(
  failed: number,
  { baseMs, maxMs }: BackoffSettings,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(failed - 1, 0), 30);
  const step = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}
