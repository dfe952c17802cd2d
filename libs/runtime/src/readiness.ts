/** One dependency a process needs; `required: false` means it degrades without it (e.g. a cache). */
export interface DependencyCheck {
  readonly name: string;
  readonly required: boolean;
  /** Resolves when the dependency answers; rejects (or times out) otherwise. */
  check(): Promise<void>;
}

export interface DependencyStatus {
  readonly status: 'up' | 'down';
  readonly required: boolean;
  readonly latency_ms: number;
  readonly error?: string;
}

export interface ReadinessReport {
  readonly status: 'ready' | 'not_ready';
  readonly dependencies: Record<string, DependencyStatus>;
}

/** Runs every check in parallel, each bounded by `timeoutMs`. Ready when every required one is up. */
export async function checkReadiness(
  checks: readonly DependencyCheck[],
  timeoutMs = 2000,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (dep): Promise<[string, DependencyStatus]> => {
      const started = performance.now();
      try {
        await withTimeout(dep.check(), timeoutMs, `${dep.name} did not answer within ${timeoutMs} ms`);
        return [dep.name, { status: 'up', required: dep.required, latency_ms: elapsed(started) }];
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        return [dep.name, { status: 'down', required: dep.required, latency_ms: elapsed(started), error }];
      }
    }),
  );
  const dependencies = Object.fromEntries(results);
  const ready = results.every(([, s]) => s.status === 'up' || !s.required);
  return { status: ready ? 'ready' : 'not_ready', dependencies };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
