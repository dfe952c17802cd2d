import { readinessProblems, type Degraded, type DependencyCheck, type ReadinessReport } from '@tp/runtime';

/** How long one probe of another process's /ready may take. */
const PROBE_TIMEOUT_MS = 1500;

/** How long one probe's answer stands for every check that asks (the public /ready is cheap to call). */
const PROBE_FRESH_MS = 1000;

/**
 * Another of our processes as it reports itself on GET /ready: up when it is ready with every
 * dependency up, degraded when it is ready without some (the reasons are its own), down when it is
 * not ready or does not answer. Optional by default: the caller serves what does not need it. Checks
 * within PROBE_FRESH_MS of a probe share its answer, so however often the caller's /ready is asked,
 * the other process is asked at most once a second.
 */
export function processReadinessCheck(name: string, baseUrl: string, required = false): DependencyCheck {
  let last: { at: number; answer: Promise<void | Degraded> } | undefined;
  const probe = async (): Promise<void | Degraded> => {
    const report = await fetchReadiness(baseUrl, AbortSignal.timeout(PROBE_TIMEOUT_MS));
    const problems = readinessProblems(report).join('; ');
    if (report.status !== 'ready') throw new Error(`not ready: ${problems || 'no reason given'}`);
    return problems ? { degraded: problems } : undefined;
  };
  return {
    name,
    required,
    check() {
      const now = performance.now();
      if (!last || now - last.at >= PROBE_FRESH_MS) last = { at: now, answer: probe() };
      return last.answer;
    },
  };
}

/** A process's GET /ready report (its 503 carries one too); throws when it cannot be read. */
export async function fetchReadiness(baseUrl: string, signal: AbortSignal): Promise<ReadinessReport> {
  const res = await fetch(new URL('/ready', baseUrl), { signal });
  const body = (await res.json().catch(() => undefined)) as Partial<ReadinessReport> | undefined;
  if (!body || typeof body.dependencies !== 'object' || body.dependencies === null) {
    throw new Error(`/ready answered ${res.status} without a readiness report`);
  }
  const ready = res.ok && body.status === 'ready';
  return { status: ready ? 'ready' : 'not_ready', dependencies: body.dependencies };
}
