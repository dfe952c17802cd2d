/** A dependency that answers but works with less, and why (the nli service without its model). */
export interface Degraded {
  readonly degraded: string;
}

/** One dependency a process needs; `required: false` means it degrades without it (e.g. a cache). */
export interface DependencyCheck {
  readonly name: string;
  readonly required: boolean;
  /**
   * Resolves when the dependency answers, with `{ degraded }` when it answers but works with less
   * (it counts as answering); rejects (or times out) when it does not answer.
   */
  check(): Promise<void | Degraded>;
}

/**
 * `up`: answers fully; `degraded`: answers, works with less (`reason` says why; a required one still
 * counts as answering); `down`: does not answer (`error` says why).
 */
export interface DependencyStatus {
  readonly status: 'up' | 'degraded' | 'down';
  readonly required: boolean;
  readonly latency_ms: number;
  readonly error?: string;
  readonly reason?: string;
}

export interface ReadinessReport {
  readonly status: 'ready' | 'not_ready';
  readonly dependencies: Record<string, DependencyStatus>;
}

/** Runs every check in parallel, each bounded by `timeoutMs`. Ready when every required one answers. */
export async function checkReadiness(
  checks: readonly DependencyCheck[],
  timeoutMs = 2000,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (dep): Promise<[string, DependencyStatus]> => {
      const started = performance.now();
      const base = { required: dep.required };
      try {
        const answer = await withTimeout(
          dep.check(),
          timeoutMs,
          `${dep.name} did not answer within ${timeoutMs} ms`,
        );
        const latency_ms = elapsed(started);
        return answer
          ? [dep.name, { status: 'degraded', ...base, latency_ms, reason: answer.degraded }]
          : [dep.name, { status: 'up', ...base, latency_ms }];
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        return [dep.name, { status: 'down', ...base, latency_ms: elapsed(started), error }];
      }
    }),
  );
  const dependencies = Object.fromEntries(results);
  const ready = results.every(([, s]) => s.status !== 'down' || !s.required);
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

/**
 * Each dependency of a report that is not up, as `name status: why` (`model degraded: no model at
 * …`), in the report's order: one vocabulary for the checks that read another process's /ready, the
 * status page and `npm start`'s ready line.
 */
export function readinessProblems(report: Pick<ReadinessReport, 'dependencies'>): string[] {
  return Object.entries(report.dependencies).flatMap(([name, dep]) => {
    if (dep.status === 'up') return [];
    const why = dep.error ?? dep.reason;
    return [`${name} ${dep.status}${why ? `: ${why}` : ''}`];
  });
}
