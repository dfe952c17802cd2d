// npm run bench:soak: memory under a steady mixed load through the gateway (issue 20, "Memory").
// Gateway, translator and worker run as processes (APy as the engine: APERTIUM_URL, else one started
// on a free port), each with an inspector on a local port. After a warm-up, for BENCH_SOAK_SECONDS
// (600), three loads run at once at fixed rates (autocannon's overallRate):
//   - translate cache hits: POST /api/v1/translate over BENCH_SOAK_TEXTS sentences translated once
//     before (BENCH_SOAK_RATE req/s, default 100);
//   - merge reads: GET /api/v1/content/{type}/{id} with `x-language: es` over entities whose
//     translations the pipeline wrote before (half that rate);
//   - content reports: POST /api/v1/content/catalog/{type}/{id}, each a new entity of 3 English fields
//     translated into es through Kafka, the translator and APy (BENCH_SOAK_REPORTS per second, 1).
// At the start (after the warm-up) and at the end, each process's heap is read after a full garbage
// collection (the inspector's HeapProfiler.collectGarbage: no --expose-gc needed), with its RSS.
// Bounds (verdicts, `-- --check` exits 1 when one is missed, bench/verdict.ts):
//   heap used after GC at the end <= start x 1.2 + 20 MiB, per process (a leak keeps what it holds
//   through a full collection; caches that fill up to their bound stay within it after the warm-up);
//   RSS at the end <= start x 1.5 + 50 MiB (RSS also holds freed pages the allocator keeps, so it gets
//   a looser bound: it catches native leaks, buffers and sockets, which the heap does not show).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import autocannon from 'autocannon';
import { connectDatabase, ContentTranslation } from '@tp/db';

import {
  apertiumStackEnv,
  REPO_ROOT,
  benchApertium,
  createApiKey,
  createBenchTopics,
  freePort,
  type BenchApertium,
  inspectMemory,
  rssMiB,
  waitForHttp,
} from './bench-support.js';
import { Verdicts } from './verdict.js';

const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const WARM_UP_SECONDS = Number(process.env.BENCH_SOAK_WARM_UP_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 100);
const REPORTS_PER_SECOND = Number(process.env.BENCH_SOAK_REPORTS ?? 1);
const TEXTS = Number(process.env.BENCH_SOAK_TEXTS ?? 50);
const ENTITIES = 20;
const FIELDS = 3;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tp_bench';
const run = randomBytes(3).toString('hex');
const prefix = `bench.${run}.`;
const type = `soak${run}`;
const verdicts = new Verdicts();
const HEAP_BOUND = { factor: 1.2, plusMiB: 20 };
const RSS_BOUND = { factor: 1.5, plusMiB: 50 };

const sentence = (n: number) => `The soak market number ${n} opens early on Monday.`;
const fields = (n: number) =>
  Object.fromEntries(Array.from({ length: FIELDS }, (_, f) => [`f${f}`, `${sentence(n)} Field ${f}.`]));

const children = new Map<string, ChildProcess>();
function start(name: string, inspectPort: number, env: NodeJS.ProcessEnv): void {
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=TimeoutNegativeWarning',
      `--inspect=127.0.0.1:${inspectPort}`,
      `${REPO_ROOT}services/${name}/dist/main.js`,
    ],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  children.set(name, child);
}

interface Memory {
  readonly heapMiB: number;
  readonly rssMiB: number;
}

/** Each process's heap used after a full GC, and its RSS. */
async function memoryOfAll(inspectPorts: Record<string, number>): Promise<Record<string, Memory>> {
  const out: Record<string, Memory> = {};
  for (const [name, port] of Object.entries(inspectPorts)) {
    const heap = await inspectMemory(port);
    out[name] = { heapMiB: heap.heapUsedMiB, rssMiB: rssMiB(children.get(name)?.pid ?? -1) };
  }
  return out;
}

/** One load at a fixed rate for `seconds`; resolves with its 2xx and other answers. */
async function load(
  label: string,
  options: autocannon.Options,
): Promise<{ label: string; ok: number; other: number }> {
  const result = await autocannon(options);
  return { label, ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts };
}

let apertium: BenchApertium | undefined;
try {
  apertium = await benchApertium('apertium-soak');
  const apertiumUrl = apertium.url;
  await createBenchTopics(prefix);

  const ports = { gateway: await freePort(), translator: await freePort(), worker: await freePort() };
  const inspectPorts = {
    gateway: await freePort(),
    translator: await freePort(),
    worker: await freePort(),
  };
  const env = apertiumStackEnv({ databaseUrl: DATABASE_URL, prefix, run, apertiumUrl, ports });
  for (const [name, port] of Object.entries(ports)) {
    start(name, inspectPorts[name as keyof typeof inspectPorts], { ...env, PORT: String(port) });
  }
  for (const port of Object.values(ports)) await waitForHttp(`http://127.0.0.1:${port}/health`, 120_000);
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  const key = createApiKey('admin', `bench soak ${run}`);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  // ---- set-up: the texts the translate load hits, the entities the merge load reads --------------
  await fetch(`${gateway}/api/admin/translate/config`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ target_languages: ['es'], enabled: true }),
  });
  for (let n = 0; n < TEXTS; n += 1) {
    const res = await fetch(`${gateway}/api/v1/translate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: sentence(n), source: 'en', target: 'es' }),
    });
    if (res.status !== 200) throw new Error(`translating text ${n}: HTTP ${res.status} ${await res.text()}`);
  }
  await seedEntities(gateway, headers);

  // ---- the soak ----------------------------------------------------------------------------------
  let reportNo = 1_000;
  let textNo = 0;
  let entityNo = 0;
  const loads = (seconds: number) =>
    Promise.all([
      load('translate cache hits', {
        url: `${gateway}/api/v1/translate`,
        connections: 4,
        overallRate: RATE,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers,
            setupRequest: (r) => ({
              ...r,
              body: JSON.stringify({ text: sentence(textNo++ % TEXTS), source: 'en', target: 'es' }),
            }),
          },
        ],
      }),
      load('merge reads (x-language: es)', {
        url: `${gateway}/api/v1/content/${type}/e-0`,
        connections: 4,
        overallRate: Math.max(1, Math.round(RATE / 2)),
        duration: seconds,
        headers: { authorization: headers.authorization, 'x-language': 'es' },
        requests: [
          { setupRequest: (r) => ({ ...r, path: `/api/v1/content/${type}/e-${entityNo++ % ENTITIES}` }) },
        ],
      }),
      load('content reports (3 fields into es)', {
        url: `${gateway}/api/v1/content/catalog/${type}/r-0`,
        connections: 1,
        overallRate: REPORTS_PER_SECOND,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers,
            setupRequest: (r) => {
              const n = reportNo++;
              return {
                ...r,
                path: `/api/v1/content/catalog/${type}/r-${n}`,
                body: JSON.stringify({ source_lang: 'en', source_version: 1, fields: fields(n) }),
              };
            },
          },
        ],
      }),
    ]);

  console.error(`warm-up: ${WARM_UP_SECONDS} s of the mixed load`);
  await loads(WARM_UP_SECONDS);
  const before = await memoryOfAll(inspectPorts);
  console.error(`soak: ${SOAK_SECONDS} s`);
  const served = await loads(SOAK_SECONDS);
  const after = await memoryOfAll(inspectPorts);
  report(served, before, after);
  await printReportRows(reportNo - 1_000);
  verdicts.finish();
} finally {
  for (const child of children.values()) child.kill('SIGTERM');
  apertium?.stop();
}

/** ENTITIES reports through the pipeline, then waits until all their es rows are written. */
async function seedEntities(gateway: string, headers: Record<string, string>): Promise<void> {
  for (let e = 0; e < ENTITIES; e += 1) {
    const res = await fetch(`${gateway}/api/v1/content/catalog/${type}/e-${e}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ source_lang: 'en', source_version: 1, fields: fields(e) }),
    });
    if (res.status >= 300) throw new Error(`reporting entity ${e}: HTTP ${res.status} ${await res.text()}`);
  }
  const orm = await connectDatabase({ url: DATABASE_URL, poolMax: 1 });
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const rows = await orm.em
        .fork()
        .count(ContentTranslation, { entityType: type, entityId: { $like: 'e-%' } });
      if (rows >= ENTITIES * FIELDS) return;
      if (Date.now() > deadline) throw new Error(`entities not translated after 300 s: ${rows} rows`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await orm.close(true);
  }
}

/** How many of the reports' field translations the pipeline has written by now (no verdict). */
async function printReportRows(reports: number): Promise<void> {
  const orm = await connectDatabase({ url: DATABASE_URL, poolMax: 1 });
  try {
    const rows = await orm.em
      .fork()
      .count(ContentTranslation, { entityType: type, entityId: { $like: 'r-%' } });
    console.log(
      `  pipeline: ${rows} of ${reports * FIELDS} field translations of the reports written when the soak ended`,
    );
  } finally {
    await orm.close(true);
  }
}

function report(
  served: readonly { label: string; ok: number; other: number }[],
  before: Record<string, Memory>,
  after: Record<string, Memory>,
): void {
  console.log(
    `\nbench:soak  ${SOAK_SECONDS} s after ${WARM_UP_SECONDS} s of warm-up, node ${process.version}`,
  );
  for (const { label, ok, other } of served) {
    console.log(`  ${label}: ${ok} 2xx (${(ok / SOAK_SECONDS).toFixed(1)}/s), ${other} other`);
  }
  console.log('\n| process | heap used after GC, start -> end MiB | RSS start -> end MiB |');
  console.log('|---|---|---|');
  for (const [name, start] of Object.entries(before)) {
    const end = after[name] as Memory;
    console.log(
      `| ${name} | ${start.heapMiB.toFixed(1)} -> ${end.heapMiB.toFixed(1)} | ${start.rssMiB.toFixed(0)} -> ${end.rssMiB.toFixed(0)} |`,
    );
  }
  console.log('');
  for (const [name, start] of Object.entries(before)) {
    const end = after[name] as Memory;
    const heapBound = start.heapMiB * HEAP_BOUND.factor + HEAP_BOUND.plusMiB;
    const rssBound = start.rssMiB * RSS_BOUND.factor + RSS_BOUND.plusMiB;
    verdicts.check(`${name}: heap used after GC at the end`, end.heapMiB, '<=', heapBound, ' MiB');
    verdicts.check(`${name}: RSS at the end`, end.rssMiB, '<=', rssBound, ' MiB');
  }
  const failed = served.reduce((sum, { other }) => sum + other, 0);
  verdicts.check('requests not answered 2xx during the soak', failed, '<=', 0);
}
