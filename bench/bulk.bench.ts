// npm run bench:bulk: a business system's first day, a bulk load through the content pipeline with the
// real Apertium as its engine, against Apertium itself on the same sentences in the same run.
//   sentences: BENCH_ENTITIES x 10 English sentences written by people, the original messages of
//              Debian's gettext catalogues (tools/language-eval's corpus, the one npm run eval:detect
//              reads); none written for the bench.
//   baseline:  `apertium -u -f line eng-spa` on those sentences, one per line (the command's own
//              start-up included): lines per second. Run before and after the pipeline; the faster
//              run is the baseline.
//   pipeline:  a gateway, translator and worker (npm start's services) with APy as the one engine and
//              `es` as the one target: BENCH_ENTITIES reports of 10 fields each (8 in flight), from the
//              first report sent to the last row written (content_translations.updated_at). A field is
//              finished when it has a row, or has failed: sent to the retry topic (the translator's
//              translation_requests_retried_total) or dead-lettered (the dead-letter index). Field
//              translations per second = rows / that time. Also: each process's CPU per field and
//              largest RSS (APy's process tree for CPU).
// Target (issue 36): the pipeline at least 50 % of the baseline's lines/s. `-- --check` exits 1 when
// missed (bench/verdict.ts). Uses APERTIUM_URL when set, else starts APy (infra/apertium/apertium.sh).
// `-- --burst`: the bounded-memory run instead (issue 36, docs/pipeline.md "Large loads stay bounded"): 1,000
// reports of 100 fields (100,000 fields; the corpus's sentences in turn, so repeats are hot-cache
// hits), no baseline; verdicts: each service's largest RSS within RSS_BOUND_MIB.
// Env: BENCH_ENTITIES (500; 1,000 with --burst), BENCH_IN_FLIGHT (8), BENCH_LOG_DIR (the services'
//      logs), BENCH_NODE_FLAGS (node flags for every service, e.g. --cpu-prof --cpu-prof-dir=<dir>),
//      DATABASE_URL, REDIS_URL, KAFKA_BROKERS (set by scripts/bench.sh).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { connectDatabase, ContentTranslation, DeadLetterEntry, SourceContent } from '@tp/db';

import { buildCorpus } from '../tools/language-eval/src/corpus/build-corpus.js';
import {
  apertiumStackEnv,
  benchApertium,
  createApiKey,
  createBenchTopics,
  freePort,
  listeningPid,
  REPO_ROOT,
  waitForHttp,
  type BenchApertium,
} from './bench-support.js';
import { ProcessWatch, type ProcessFigures, type WatchedProcess } from './process-watch.js';
import { Verdicts } from './verdict.js';

/** `--burst`: the bounded-memory run (docs/pipeline.md, "Large loads stay bounded"), 100,000 fields at once. */
const BURST = process.argv.includes('--burst');
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? (BURST ? 1000 : 500));
const FIELDS = BURST ? 100 : 10;
/**
 * Largest resident set (MiB) each service may reach during a run, burst included: the bound
 * docs/pipeline.md documents ("Large loads stay bounded"). A queue in memory that grew with the load would pass it.
 */
const RSS_BOUND_MIB: Readonly<Record<string, number>> = { gateway: 400, translator: 768, worker: 512 };
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
/** Issue 36: the pipeline's field translations/s as a share (%) of `apertium -u -f line eng-spa`'s lines/s. */
const SHARE_TARGET = 50;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tp_bench';
const run = randomBytes(3).toString('hex');
const prefix = `bench.${run}.`;
const type = `bulk${run}`;
const sh = promisify(execFile);

const children: ChildProcess[] = [];
/** BENCH_NODE_FLAGS: node flags for every service (e.g. `--cpu-prof --cpu-prof-dir=<dir>`). */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** With BENCH_LOG_DIR, each service's log (LOG_LEVEL warn) goes to <dir>/<service>.log. */
const LOG_DIR = process.env.BENCH_LOG_DIR;
function start(name: string, env: NodeJS.ProcessEnv): void {
  const log = LOG_DIR ? openSync(join(LOG_DIR, `${name}.log`), 'a') : 'ignore';
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, '--disable-warning=TimeoutNegativeWarning', `${REPO_ROOT}services/${name}/dist/main.js`],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', log, 'inherit'] },
  );
  children.push(child);
}

/**
 * Distinct English sentences of the corpus, shortest first left out (a sentence, not a label). With
 * `cycle` (the burst), more than the corpus holds: its sentences again in turn (hot-cache hits).
 */
async function sentences(count: number, cycle = false): Promise<string[]> {
  const corpus = await buildCorpus(count);
  const english = corpus.entries.filter((e) => e.language === 'en').map((e) => e.text);
  const unique = [...new Set(english)].filter((text) => !text.includes('\n'));
  if (unique.length < count && !cycle)
    throw new Error(`the corpus has ${unique.length} English sentences, not ${count}`);
  return Array.from({ length: count }, (_, i) => unique[i % unique.length] as string);
}

/** The services (by their ports) and APy's process tree. */
function watched(ports: Readonly<Record<string, number>>, apertiumUrl: string): WatchedProcess[] {
  const list: WatchedProcess[] = [];
  for (const [name, port] of Object.entries(ports)) {
    const pid = listeningPid(port);
    if (pid !== undefined) list.push({ name, pid });
  }
  const apy = listeningPid(Number(new URL(apertiumUrl).port));
  if (apy !== undefined) list.push({ name: 'apy', pid: apy, tree: true });
  return list;
}

/** CPU per field and largest RSS of each process (APy's RSS is its server's alone). */
function printFigures(figures: readonly ProcessFigures[], fields: number): void {
  for (const { name, cpuMs, startRssMiB, peakRssMiB } of figures) {
    console.log(
      `  ${name}: ${((cpuMs * 1000) / fields).toFixed(0)} µs CPU per field (${(cpuMs / 1000).toFixed(1)} s), ` +
        `RSS ${startRssMiB.toFixed(0)} -> peak ${peakRssMiB.toFixed(0)} MiB`,
    );
  }
}

/** `apertium -u -f line eng-spa` over the sentences: lines per second, start-up included. */
async function apertiumCommand(file: string, lines: number): Promise<number> {
  const started = performance.now();
  await sh('bash', ['-c', `apertium -u -f line eng-spa < '${file}' > /dev/null`], { maxBuffer: 1 << 26 });
  return lines / ((performance.now() - started) / 1000);
}

let apertium: BenchApertium | undefined;
const orm = await connectDatabase({ url: DATABASE_URL, poolMax: 2 });
const work = await mkdtemp(join(tmpdir(), 'tp-bench-bulk-'));
try {
  const texts = await sentences(ENTITIES * FIELDS + FIELDS, BURST);
  const [warmTexts, benchTexts] = [texts.slice(0, FIELDS), texts.slice(FIELDS)];
  const file = join(work, 'sentences.txt');
  await writeFile(file, `${benchTexts.join('\n')}\n`);
  await writeFile(join(work, 'warm.txt'), `${warmTexts.join('\n')}\n`);
  await apertiumCommand(join(work, 'warm.txt'), FIELDS); // binaries and dictionaries in the page cache

  apertium = await benchApertium('bulk-bench');
  await createBenchTopics(prefix);
  const ports = { gateway: await freePort(), translator: await freePort(), worker: await freePort() };
  const env = apertiumStackEnv({ databaseUrl: DATABASE_URL, prefix, run, apertiumUrl: apertium.url, ports });
  for (const [name, port] of Object.entries(ports)) start(name, { ...env, PORT: String(port) });
  for (const port of Object.values(ports)) await waitForHttp(`http://127.0.0.1:${port}/health`, 120_000);
  const key = createApiKey('admin', `bench ${run}`);
  const call = (method: string, path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${ports.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const configured = await call('PUT', '/api/admin/translate/config', {
    target_languages: ['es'],
    enabled: true,
  });
  if (!configured.ok) throw new Error(`PUT /api/admin/translate/config answered ${configured.status}`);
  const report = async (id: string, fields: readonly string[]) => {
    const res = await call('POST', `/api/v1/content/catalog/${type}/${id}`, {
      source_lang: 'en',
      source_version: 1,
      fields: Object.fromEntries(fields.map((text, f) => [`f${f}`, text])),
    });
    if (res.status !== 202) throw new Error(`report ${id} answered ${res.status}: ${await res.text()}`);
  };
  /** Fields the translator sent to the retry topic at their first failure (its own metric). */
  const retriedFields = async (): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${ports.translator}/metrics`);
    const line = /^translation_requests_retried_total\{attempt="1"[^}]*\} (\d+)/m.exec(await res.text());
    return Number(line?.[1] ?? 0);
  };
  /** Entries of the dead-letter index (the table GET /api/admin/translate/status counts). */
  const deadLetters = () => orm.em.fork().count(DeadLetterEntry);
  const failedFields = async () => ({ retried: await retriedFields(), dead: await deadLetters() });
  /**
   * Waits until each of `expected` fields of entities whose ids start with `ids` has a row, or has
   * failed: retried (the translator's metric) or dead-lettered (the dead-letter index), counted from
   * `before`. The time the last row was written, and the counts.
   */
  const waitForFields = async (
    ids: string,
    expected: number,
    before: { retried: number; dead: number },
    timeoutMs: number,
  ) => {
    const where = { entityType: type, entityId: { $like: `${ids}%` } };
    const started = performance.now();
    let told = started;
    let failed = before;
    let lastRows = -1;
    for (;;) {
      const rows = await orm.em.fork().count(ContentTranslation, where);
      // The failures are read when the rows stop coming (a stalled or finished run), not at every
      // poll: the translator's metrics page costs it a few ms.
      if (rows === lastRows) failed = await failedFields();
      lastRows = rows;
      const now = failed;
      const counts = { rows, retried: now.retried - before.retried, dead: now.dead - before.dead };
      const finished = counts.rows + counts.retried + counts.dead;
      if (performance.now() - told > 10_000) {
        told = performance.now();
        console.log(`  ${finished} of ${expected} fields after ${((told - started) / 1000).toFixed(0)} s`);
      }
      if (finished >= expected) {
        const [last] = await orm.em
          .fork()
          .find(ContentTranslation, where, { orderBy: { updatedAt: 'desc' }, limit: 1 });
        return { last: last?.updatedAt as Date, ...counts };
      }
      if (performance.now() - started > timeoutMs)
        throw new Error(`only ${finished} of ${expected} fields after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  // Warm-up: APy's eng-spa pipeline started, the consumer groups joined.
  await report('warm', warmTexts);
  await waitForFields('warm', FIELDS, await failedFields(), 120_000);

  const before = BURST ? Number.NaN : await apertiumCommand(file, benchTexts.length);
  console.log(
    `bench:bulk${BURST ? ' --burst' : ''}: ${ENTITIES} reports x ${FIELDS} English sentences (Debian's catalogues), en -> es through APy, ${IN_FLIGHT} reports in flight`,
  );
  const watch = new ProcessWatch(watched(ports, apertium.url));
  const failedBefore = await failedFields();
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < ENTITIES; i = next++) {
        await report(`e-${i}`, benchTexts.slice(i * FIELDS, (i + 1) * FIELDS));
      }
    }),
  );
  const accepted = (Date.now() - started) / 1000;
  const expected = ENTITIES * FIELDS;
  const { last, rows, retried, dead } = await waitForFields('e-', expected, failedBefore, 900_000);
  const figures = watch.stop();
  const seconds = (last.getTime() - started) / 1000;
  const perSecond = rows / seconds;
  console.log(
    `pipeline: ${expected} fields finished (row, retry or dead letter) in ${seconds.toFixed(2)} s from the first report to the last row ` +
      `(reports accepted in ${accepted.toFixed(2)} s): ${perSecond.toFixed(0)} field translations/s`,
  );
  console.log(`fields: ${rows} rows written, ${retried} sent to the retry topic, ${dead} dead-lettered`);
  printFigures(figures, expected);
  const verdicts = new Verdicts();
  if (BURST) {
    for (const { name, peakRssMiB } of figures.filter((f) => f.name in RSS_BOUND_MIB))
      verdicts.check(`${name} peak RSS`, peakRssMiB, '<=', RSS_BOUND_MIB[name] as number, ' MiB');
  } else {
    const after = await apertiumCommand(file, benchTexts.length);
    console.log(
      `apertium -u -f line eng-spa: ${before.toFixed(0)} lines/s before the pipeline, ${after.toFixed(0)} after`,
    );
    verdicts.check(
      'pipeline field translations/s / apertium -u -f line eng-spa lines/s',
      (100 * perSecond) / Math.max(before, after),
      '>=',
      SHARE_TARGET,
      '%',
    );
  }
  verdicts.finish();
} finally {
  for (const child of children) child.kill('SIGTERM');
  apertium?.stop();
  // The bench database keeps only what other benches need.
  await orm.em.fork().nativeDelete(ContentTranslation, { entityType: type });
  await orm.em.fork().nativeDelete(SourceContent, { entityType: type });
  await orm.close(true);
  await rm(work, { recursive: true, force: true });
}
