// Where a process's CPU went, by bucket, from a V8 CPU profile (.cpuprofile: nodes with callFrame.url,
// samples and timeDeltas, as `Profiler.stop` or `--cpu-prof` write it). Each sample is attributed to
// the first frame, walking up from the leaf, that belongs to a bucket: a package (by the last
// node_modules/<package>/ of its URL), our own code (a workspace path), or one of V8's own nodes
// (garbage collector, program). Node's own modules (node:*) and native builtins belong to no bucket,
// so their time goes to whoever called them: a socket write under the pg client is the pg client's.
// A stack with no bucket at all is "Node core". Idle samples are not CPU and are left out.

/** One node of a .cpuprofile. */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

/** The parts of a .cpuprofile this module reads. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A bucket and, for our own code and other packages, the part within it (a folder, a package). */
export interface Attribution {
  readonly bucket: string;
  readonly part?: string;
}

export const BUCKETS = {
  kafkajs: 'kafkajs',
  avro: 'Avro codec (avsc)',
  pg: 'pg client',
  orm: 'MikroORM / Kysely',
  redis: 'Redis client',
  model: 'model run',
  otel: 'OpenTelemetry',
  gc: 'GC',
  ours: 'our code',
  packages: 'other packages',
  program: 'V8 (program)',
  node: 'Node core',
} as const;

const PACKAGE_BUCKETS: readonly (readonly [RegExp, string])[] = [
  [/^kafkajs$/, BUCKETS.kafkajs],
  [/^avsc$/, BUCKETS.avro],
  [/^(pg|pg-.+|postgres-.+|pgpass)$/, BUCKETS.pg],
  [/^(kysely|@mikro-orm\/.+)$/, BUCKETS.orm],
  [/^(redis|@redis\/.+|cluster-key-slot|generic-pool)$/, BUCKETS.redis],
  [/^(onnxruntime-.+|@huggingface\/.+)$/, BUCKETS.model],
  [/^(@opentelemetry\/.+|import-in-the-middle|require-in-the-middle|shimmer)$/, BUCKETS.otel],
];

/** The package a URL's file belongs to ("kafkajs", "@redis/client"), if it is under node_modules. */
export function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
  if (!first) return undefined;
  return first.startsWith('@') && second ? `${first}/${second}` : first;
}

/** Our own code: services/<name>/(src|dist)/<folder>/..., libs/<name>/..., schemas/, contracts/. */
const OURS = /\/(services\/[^/]+\/(?:src|dist)\/[^/.]+|libs\/[^/]+|schemas|contracts)\//;
/** The offline engine is the model run: its tokenizing and decoding loop drive onnxruntime. */
const MODEL_FOLDER = /\/services\/translator\/(?:src|dist)\/engines\/offline\//;

/** The bucket of one frame, or undefined when the frame belongs to none (Node core, builtins). */
export function bucketOfFrame(callFrame: ProfileNode['callFrame']): Attribution | undefined {
  const { functionName, url } = callFrame;
  if (!url) {
    if (functionName === '(garbage collector)') return { bucket: BUCKETS.gc };
    if (functionName === '(program)') return { bucket: BUCKETS.program };
    return undefined;
  }
  if (url.startsWith('node:')) return undefined;
  const pkg = packageOf(url);
  if (pkg !== undefined) {
    const rule = PACKAGE_BUCKETS.find(([pattern]) => pattern.test(pkg));
    return rule ? { bucket: rule[1] } : { bucket: BUCKETS.packages, part: pkg };
  }
  if (MODEL_FOLDER.test(url)) return { bucket: BUCKETS.model };
  const ours = OURS.exec(url);
  if (ours) return { bucket: BUCKETS.ours, part: (ours[1] as string).replace(/\/(?:src|dist)\//, '/') };
  return undefined;
}

/** CPU microseconds by bucket (and by part within a bucket), and the profile's busy and idle time. */
export interface ProfileSummary {
  readonly busyMicros: number;
  readonly idleMicros: number;
  readonly byBucket: ReadonlyMap<string, number>;
  /** "our code: worker/plan-translations" -> µs; "other packages: zod" -> µs. */
  readonly byPart: ReadonlyMap<string, number>;
}

/**
 * Sums a profile's samples by bucket. A sample counts for the time until the next sample (the last
 * one until the profile's end), as Chrome DevTools counts it.
 */
export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const attribution = new Map<number, Attribution | 'idle'>();
  const attribute = (id: number): Attribution | 'idle' => {
    const known = attribution.get(id);
    if (known) return known;
    const node = byId.get(id);
    let found: Attribution | 'idle' = { bucket: BUCKETS.node };
    if (node?.callFrame.functionName === '(idle)' && !node.callFrame.url) found = 'idle';
    else {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at);
        const bucket = frame && bucketOfFrame(frame.callFrame);
        if (bucket) {
          found = bucket;
          break;
        }
      }
    }
    attribution.set(id, found);
    return found;
  };

  const byBucket = new Map<string, number>();
  const byPart = new Map<string, number>();
  let [busyMicros, idleMicros] = [0, 0];
  let time = profile.startTime;
  const times = profile.timeDeltas.map((delta) => (time += delta));
  profile.samples.forEach((id, i) => {
    const micros = Math.max(0, (times[i + 1] ?? profile.endTime) - (times[i] as number));
    const found = attribute(id);
    if (found === 'idle') {
      idleMicros += micros;
      return;
    }
    busyMicros += micros;
    byBucket.set(found.bucket, (byBucket.get(found.bucket) ?? 0) + micros);
    if (found.part) {
      const key = `${found.bucket}: ${found.part}`;
      byPart.set(key, (byPart.get(key) ?? 0) + micros);
    }
  });
  return { busyMicros, idleMicros, byBucket, byPart };
}

/**
 * One process's profile, with its CPU time from the OS over the same window: its main thread's (the
 * one the profile samples) and all its threads'.
 */
export interface ProcessProfile {
  readonly name: string;
  readonly summary: ProfileSummary;
  readonly mainThreadMicros: number;
  readonly cpuMicros: number;
  /** The other threads' CPU µs by thread name, when known. */
  readonly otherThreads?: ReadonlyMap<string, number>;
}

const ORDER: readonly string[] = Object.values(BUCKETS);

/**
 * A Markdown table of CPU µs per unit (e.g. per field translation) by bucket, a column per process,
 * the largest parts of our code and of other packages below their bucket. The samples give each
 * bucket's share of the main thread's busy time; the µs are that share of the main thread's CPU time
 * from the OS (a sample's weight is wall time, which a preempted thread stretches on a busy machine).
 * Closing rows: the main thread's CPU, the other threads' (V8's GC helpers, onnxruntime's threads,
 * libuv's pool) and the process's.
 */
export function bucketTable(processes: readonly ProcessProfile[], units: number, partsShown = 4): string {
  const scaled = (p: ProcessProfile, micros: number) =>
    p.summary.busyMicros > 0 ? (micros * p.mainThreadMicros) / p.summary.busyMicros : 0;
  const cell = (micros: number) => (micros / units).toFixed(1);
  const header = `| bucket, CPU µs per unit | ${processes.map((p) => p.name).join(' | ')} |`;
  const rule = `|---|${processes.map(() => '---:').join('|')}|`;
  const rows: string[] = [];
  for (const bucket of ORDER) {
    const values = processes.map((p) => scaled(p, p.summary.byBucket.get(bucket) ?? 0));
    if (values.every((v) => v === 0)) continue;
    rows.push(`| ${bucket} | ${values.map(cell).join(' | ')} |`);
    const parts = new Set<string>();
    for (const p of processes) {
      [...p.summary.byPart]
        .filter(([key]) => key.startsWith(`${bucket}: `))
        .sort((a, b) => b[1] - a[1])
        .slice(0, partsShown)
        .forEach(([key]) => parts.add(key));
    }
    for (const key of parts) {
      const part = key.slice(bucket.length + 2);
      const partValues = processes.map((p) => scaled(p, p.summary.byPart.get(key) ?? 0));
      rows.push(`| · ${part} | ${partValues.map(cell).join(' | ')} |`);
    }
  }
  const total = (label: string, of: (p: ProcessProfile) => number) =>
    rows.push(`| **${label}** | ${processes.map((p) => cell(of(p))).join(' | ')} |`);
  total('main thread (the buckets above)', (p) => p.mainThreadMicros);
  total('other threads', (p) => p.cpuMicros - p.mainThreadMicros);
  const names = new Set(processes.flatMap((p) => [...(p.otherThreads?.keys() ?? [])]));
  for (const name of [...names].sort()) {
    const values = processes.map((p) => p.otherThreads?.get(name) ?? 0);
    if (values.some((v) => v / units >= 0.05)) rows.push(`| · ${name} | ${values.map(cell).join(' | ')} |`);
  }
  if (names.size > 0) {
    // A thread that ended within the window leaves its CPU in the process's count only.
    const named = (p: ProcessProfile) => [...(p.otherThreads?.values() ?? [])].reduce((sum, v) => sum + v, 0);
    total('· threads that ended', (p) => p.cpuMicros - p.mainThreadMicros - named(p));
  }
  total('process', (p) => p.cpuMicros);
  return [header, rule, ...rows].join('\n');
}
