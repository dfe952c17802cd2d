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
// `-- --live`: after the bulk load, live traffic beside a backfill (issue 36): the gateway serves, at
// fixed rates and open loop (bench/latency-samples.ts pacedLatency: each request starts on time whatever
// the earlier ones do), BENCH_LIVE_TRANSLATE_RATE (50) translate cache hits/s (POST /api/v1/translate
// en -> es over 50 of the sentences, each translated once before) and BENCH_LIVE_READ_RATE (20) reads/s
// with `x-language: es` (GET /api/v1/content/{type}/{id} of the loaded entities). After a 10 s warm-up,
// BENCH_LIVE_ROUNDS (4) rounds of: BENCH_LIVE_SECONDS (10) without a backfill; then as long beside the
// backfill of BENCH_LIVE_LANGUAGE (ca: eng-cat through APy), started as an operator does, by adding the
// language to the configuration, and stopped by removing it (its requests drained before the next
// round). Each side's samples pooled over the rounds. Verdicts: each load's p99 beside the backfill at
// most 2x its p99 without; 99 % of the requests offered answered 2xx on each side; the backfill still
// running when each window beside it ended (else the window was not all beside it).
// Env: BENCH_ENTITIES (500; 1,000 with --burst), BENCH_IN_FLIGHT (8), BENCH_LOG_DIR (the services'
//      logs), BENCH_NODE_FLAGS (node flags for every service, e.g. --cpu-prof --cpu-prof-dir=<dir>),
//      DATABASE_URL, REDIS_URL, KAFKA_BROKERS (set by scripts/bench.sh).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { Agent } from 'node:http';
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
import {
  pacedLatency,
  type PacedRequest,
  type PacedSamples,
  summarize,
  type LatencySummary,
} from './latency-samples.js';
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
/** `--live`: live traffic beside a backfill, after the bulk load. */
const LIVE = process.argv.includes('--live');
const LIVE_TRANSLATE_RATE = Number(process.env.BENCH_LIVE_TRANSLATE_RATE ?? 50);
const LIVE_READ_RATE = Number(process.env.BENCH_LIVE_READ_RATE ?? 20);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const LIVE_ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS ?? 4);
const LIVE_LANGUAGE = process.env.BENCH_LIVE_LANGUAGE ?? 'ca';
/** The sentences the translate cache hits go over. */
const LIVE_TEXTS = 50;
/** Issue 36: the live requests' p99 beside the backfill at most this many times their p99 without. */
const LIVE_P99_FACTOR = 2;
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
  if (LIVE)
    await liveBesideBackfill({
      gateway: `http://127.0.0.1:${ports.gateway}`,
      key,
      texts: benchTexts,
      verdicts,
    });
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

interface BackfillRow {
  readonly language: string;
  readonly status: string;
  readonly total: number;
  readonly requested: number;
  readonly done: number;
  readonly remaining: number;
}

/** The live loads' requests, and the operator's calls around the backfill, on one gateway. */
function liveCalls(gateway: string, key: string, texts: readonly string[]) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const translateBody = (i: number) =>
    JSON.stringify({ text: texts[i % LIVE_TEXTS], source: 'en', target: 'es' });
  return {
    translate: (i: number): PacedRequest => ({
      url: `${gateway}/api/v1/translate`,
      method: 'POST',
      headers,
      body: translateBody(i),
    }),
    read: (i: number): PacedRequest => ({
      url: `${gateway}/api/v1/content/${type}/e-${i % ENTITIES}`,
      method: 'GET',
      headers: { authorization: headers.authorization, 'x-language': 'es' },
    }),
    /** Each text of the translate load translated once, so that the load hits the cache. */
    async warm(): Promise<void> {
      for (let i = 0; i < LIVE_TEXTS; i += 1) {
        const res = await fetch(`${gateway}/api/v1/translate`, {
          method: 'POST',
          headers,
          body: translateBody(i),
        });
        if (res.status !== 200) throw new Error(`translating live text ${i} answered ${res.status}`);
      }
    },
    /** The running backfill of LIVE_LANGUAGE, as GET /api/admin/translate/status shows it. */
    async backfill(): Promise<BackfillRow | undefined> {
      const res = await fetch(`${gateway}/api/admin/translate/status`, { headers });
      const body = (await res.json()) as { data: { backfills: { latest: BackfillRow[] } } };
      return body.data.backfills.latest.find((b) => b.language === LIVE_LANGUAGE && b.status === 'running');
    },
    async configure(languages: readonly string[]): Promise<void> {
      const res = await fetch(`${gateway}/api/admin/translate/config`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ target_languages: languages, enabled: true }),
      });
      if (!res.ok) throw new Error(`PUT /api/admin/translate/config answered ${res.status}`);
    },
  };
}
type LiveCalls = ReturnType<typeof liveCalls>;

/** Waits until the pipeline has written no row of LIVE_LANGUAGE for 2 s (a stopped backfill's requests drained). */
async function drained(): Promise<void> {
  const rows = () => orm.em.fork().count(ContentTranslation, { targetLang: LIVE_LANGUAGE });
  let last = await rows();
  for (let still = 0; still < 8;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await rows();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/** LIVE_LANGUAGE added to the configuration; resolves once its backfill has requested fields. */
async function startBackfill(calls: LiveCalls): Promise<BackfillRow> {
  await calls.configure(['es', LIVE_LANGUAGE]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const started = await calls.backfill();
    if (started && started.requested > 0) return started;
    if (Date.now() > deadline) throw new Error(`the backfill of ${LIVE_LANGUAGE} requested nothing in 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Samples of each load (translate, read), pooled over the rounds. */
type LoadSamples = readonly [PacedSamples, PacedSamples];
function noSamples(): LoadSamples {
  return [
    { ms: [], failures: new Map() },
    { ms: [], failures: new Map() },
  ];
}
function pool(into: LoadSamples, samples: readonly PacedSamples[]): void {
  samples.forEach((s, i) => {
    const side = into[i] as PacedSamples;
    side.ms.push(...s.ms);
    for (const [why, n] of s.failures) side.failures.set(why, (side.failures.get(why) ?? 0) + n);
  });
}

/**
 * Issue 36's live traffic beside a backfill: the same paced loads without, then beside the backfill
 * of LIVE_LANGUAGE (the language added to the configuration, then removed), LIVE_ROUNDS times; each
 * load's pooled p99 on both sides and their ratio as verdicts.
 */
async function liveBesideBackfill(options: {
  gateway: string;
  key: string;
  texts: readonly string[];
  verdicts: Verdicts;
}): Promise<void> {
  const calls = liveCalls(options.gateway, options.key, options.texts);
  await calls.warm();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const window = (seconds = LIVE_SECONDS) =>
    Promise.all([
      pacedLatency({ rate: LIVE_TRANSLATE_RATE, seconds, agent, next: calls.translate }),
      pacedLatency({ rate: LIVE_READ_RATE, seconds, agent, next: calls.read }),
    ]);
  console.log(
    `live: ${LIVE_TRANSLATE_RATE} translate cache hits/s and ${LIVE_READ_RATE} x-language: es reads/s (paced, open loop); ` +
      `${LIVE_ROUNDS} rounds of ${LIVE_SECONDS} s without a backfill, then ${LIVE_SECONDS} s beside the backfill of ${LIVE_LANGUAGE} ` +
      `(the language added to the configuration, then removed, which stops it)`,
  );
  await window(10); // warm-up: connections open, the gateway's paths hot
  const without = noSamples();
  const beside = noSamples();
  let fieldsDone = 0;
  let leastRemaining = Number.POSITIVE_INFINITY;
  for (let round = 1; round <= LIVE_ROUNDS; round += 1) {
    pool(without, await window());
    const started = await startBackfill(calls);
    pool(beside, await window());
    const ended = await calls.backfill();
    await calls.configure(['es']);
    const done = (ended?.done ?? Number.NaN) - started.done;
    fieldsDone += done;
    leastRemaining = Math.min(leastRemaining, ended?.remaining ?? 0);
    console.log(
      `  round ${round}: a backfill of ${started.total} fields, ${done} done during the window, ` +
        `${ended ? `${ended.remaining} remaining at its end` : 'ended before the window did'}`,
    );
    await drained();
  }
  agent.destroy();
  console.log(
    `backfill ${LIVE_LANGUAGE}: ${fieldsDone} fields done beside the live traffic (${(fieldsDone / (LIVE_ROUNDS * LIVE_SECONDS)).toFixed(0)}/s)`,
  );
  judgeLive(options.verdicts, without, beside);
  options.verdicts.check(
    `backfill ${LIVE_LANGUAGE}: fields remaining when a window beside it ended (least of the rounds)`,
    leastRemaining,
    '>=',
    1,
  );
}

/** The table of both loads on both sides, then their verdicts. */
function judgeLive(verdicts: Verdicts, without: LoadSamples, beside: LoadSamples): void {
  const loads = [
    { label: 'translate cache hits', rate: LIVE_TRANSLATE_RATE, sides: [without[0], beside[0]] },
    { label: 'x-language: es reads', rate: LIVE_READ_RATE, sides: [without[1], beside[1]] },
  ];
  const sideNames = ['without the backfill', 'beside the backfill'];
  console.log('| load | side | 2xx, failed | p50 ms | p90 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  const summaries = loads.map(({ label, sides }) =>
    sides.map((samples, j) => {
      const s = summarize(samples.ms);
      const failed = [...samples.failures].map(([why, n]) => `${n} ${why}`).join(', ') || '0';
      console.log(
        `| ${label} | ${sideNames[j]} | ${s.count}, ${failed} | ${s.p50.toFixed(1)} | ${s.p90.toFixed(1)} | ${s.p99.toFixed(1)} |`,
      );
      return s;
    }),
  );
  loads.forEach(({ label, rate }, i) => {
    const [alone, withBackfill] = summaries[i] as LatencySummary[];
    const offered = rate * LIVE_ROUNDS * LIVE_SECONDS;
    sideNames.forEach((side, j) =>
      verdicts.check(
        `live ${label} ${side}: 2xx of the requests offered`,
        (100 * ((summaries[i]?.[j]?.count ?? 0) as number)) / offered,
        '>=',
        99,
        '%',
      ),
    );
    verdicts.check(
      `live ${label}: p99 beside the backfill / p99 without`,
      (withBackfill?.p99 ?? Number.NaN) / (alone?.p99 ?? Number.NaN),
      '<=',
      LIVE_P99_FACTOR,
      'x',
    );
  });
}
