// Garbage-collection pauses of a running service, from prom-client's `nodejs_gc_duration_seconds`
// histogram on its /metrics: how many collections of each kind (minor, major, incremental, weakcb)
// and their summed pause, so a bench can say what GC did during one of its phases.

/** Collections and summed pause (ms) by kind. */
export type GcPauses = ReadonlyMap<string, { readonly count: number; readonly ms: number }>;

const LINE = /^nodejs_gc_duration_seconds_(count|sum)\{[^}]*\bkind="([a-z]+)"[^}]*\} (\S+)$/;

/** The GC pauses a Prometheus text exposition reports (kinds absent from it are absent here). */
export function parseGcPauses(exposition: string): GcPauses {
  const pauses = new Map<string, { count: number; ms: number }>();
  for (const line of exposition.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, field, kind, value] = match as unknown as [string, string, string, string];
    const entry = pauses.get(kind) ?? { count: 0, ms: 0 };
    if (field === 'count') entry.count = Number(value);
    else entry.ms = Number(value) * 1000;
    pauses.set(kind, entry);
  }
  return pauses;
}

/** What happened between two readings, e.g. "minor 8 (65.3 ms), major 1 (10.3 ms)". */
export function describeGcBetween(before: GcPauses, after: GcPauses): string {
  const parts: string[] = [];
  for (const [kind, { count, ms }] of after) {
    const earlier = before.get(kind) ?? { count: 0, ms: 0 };
    if (count > earlier.count)
      parts.push(`${kind} ${count - earlier.count} (${(ms - earlier.ms).toFixed(1)} ms)`);
  }
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** Reads a service's GC pauses from its /metrics. */
export async function readGcPauses(baseUrl: string): Promise<GcPauses> {
  const response = await fetch(`${baseUrl}/metrics`);
  return parseGcPauses(await response.text());
}
