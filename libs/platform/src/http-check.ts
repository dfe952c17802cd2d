import { readinessProblems, type DependencyCheck, type ReadinessReport } from '@tp/runtime';

/** How long one probe of another process's /ready may take. */
const PROBE_TIMEOUT_MS = 1500;

/**
 * Another of our processes as it reports itself on GET /ready: up when it is ready with every
 * dependency up, degraded when it is ready without some (the reasons are its own), down when it is
 * not ready or does not answer. Optional by default: the caller serves what does not need it.
 */
export function processReadinessCheck(name: string, baseUrl: string, required = false): DependencyCheck {
  return {
    name,
    required,
    async check() {
      const report = await fetchReadiness(baseUrl, AbortSignal.timeout(PROBE_TIMEOUT_MS));
      const problems = readinessProblems(report).join('; ');
      if (report.status !== 'ready') throw new Error(`not ready: ${problems || 'no reason given'}`);
      return problems ? { degraded: problems } : undefined;
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
