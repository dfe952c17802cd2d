import type { DependencyCheck } from '@tp/runtime';

/** Readiness of another of our processes, through its /health endpoint. */
export function httpHealthCheck(name: string, baseUrl: string, required = false): DependencyCheck {
  return {
    name,
    required,
    async check() {
      const res = await fetch(new URL('/health', baseUrl), { signal: AbortSignal.timeout(1500) });
      if (!res.ok) throw new Error(`health answered ${res.status}`);
    },
  };
}
