import { readinessProblems, type ReadinessReport } from '@tp/runtime';

import { fetchReadiness } from './http-check.js';

/** One process of the stack, by name, with its base URL. */
export interface StackService {
  readonly name: string;
  readonly url: string;
}

/** What one look at a process's GET /ready found: its report, or why there was none. */
export interface ServiceLook {
  readonly name: string;
  readonly report?: ReadinessReport;
  readonly error?: string;
}

export interface StackProblems {
  /** Dependencies that answer with less, with why: they stay so until an operator acts. */
  readonly degraded: readonly string[];
  /** Dependencies that do not answer (yet): a consumer joining its group, Redis connecting. */
  readonly down: readonly string[];
}

/** Every process answered /ready with 200. */
export const allReady = (looks: readonly ServiceLook[]): boolean =>
  looks.every((look) => look.report?.status === 'ready');

/**
 * The dependencies that are not up, as `service: dependency state: why`. A dependency named after a
 * process of the stack (the gateway's `translator`, `nli`) is left out: that process reports itself.
 */
export function stackProblems(looks: readonly ServiceLook[]): StackProblems {
  const names = new Set(looks.map((look) => look.name));
  const degraded: string[] = [];
  const down: string[] = [];
  for (const { name, report } of looks) {
    for (const [dep, state] of Object.entries(report?.dependencies ?? {})) {
      if (state.status === 'up' || names.has(dep)) continue;
      const [problem] = readinessProblems({ dependencies: { [dep]: state } });
      (state.status === 'degraded' ? degraded : down).push(`${name}: ${problem}`);
    }
  }
  return { degraded, down };
}

/**
 * `npm start`'s one line once every process is ready: where the gateway and the console are, and
 * what is degraded and why (`down` ones count: they did not come up while the line waited).
 */
export function readyLine(gatewayUrl: string, problems: StackProblems, seconds: number): string {
  const all = [...problems.degraded, ...problems.down];
  // not user text: a URL from npm start's own arguments
  const base = gatewayUrl.replace(/\/+$/, '');
  const degraded = all.length > 0 ? `degraded: ${all.join(' | ')}` : 'nothing degraded';
  return `[start] ready in ${seconds.toFixed(1)} s: gateway ${base}, console ${base}/console; ${degraded}`;
}

/** The line when the stack did not become ready in time: each process that is not, and why. */
export function notReadyLine(looks: readonly ServiceLook[], seconds: number): string {
  const why = looks
    .filter((look) => look.report?.status !== 'ready')
    .map(({ name, report, error }) =>
      report
        ? `${name}: not ready: ${readinessProblems(report).join('; ')}`
        : `${name}: ${error ?? 'no answer'}`,
    );
  return `[start] not ready after ${Math.round(seconds)} s: ${why.join(' | ')}`;
}

/** One look at every process's GET /ready, in parallel. */
export function lookAtStack(services: readonly StackService[], timeoutMs: number): Promise<ServiceLook[]> {
  return Promise.all(
    services.map(async ({ name, url }) => {
      try {
        return { name, report: await fetchReadiness(url, AbortSignal.timeout(timeoutMs)) };
      } catch (err) {
        return { name, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}
