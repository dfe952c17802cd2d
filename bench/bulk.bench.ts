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
//              first report sent to the last row written (content_translations.updated_at): field
//              translations per second.
// Target (issue 36): the pipeline at least 50 % of the baseline's lines/s. `-- --check` exits 1 when
// missed (bench/verdict.ts). Uses APERTIUM_URL when set, else starts APy (infra/apertium/apertium.sh).
// Env: BENCH_ENTITIES (500), BENCH_IN_FLIGHT (8), BENCH_LOG_DIR (the services' logs), DATABASE_URL, REDIS_URL, KAFKA_BROKERS (set by
//      scripts/bench.sh).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { connectDatabase, ContentTranslation, SourceContent } from '@tp/db';

import { buildCorpus } from '../tools/language-eval/src/corpus/build-corpus.js';
import {
  apertiumStackEnv,
  benchApertium,
  createApiKey,
  createBenchTopics,
  freePort,
  REPO_ROOT,
  waitForHttp,
  type BenchApertium,
} from './bench-support.js';
import { Verdicts } from './verdict.js';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 500);
const FIELDS = 10;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
/** Issue 36: the pipeline's field translations/s as a share (%) of `apertium -u -f line eng-spa`'s lines/s. */
const SHARE_TARGET = 50;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tp_bench';
const run = randomBytes(3).toString('hex');
const prefix = `bench.${run}.`;
const type = `bulk${run}`;
const sh = promisify(execFile);

const children: ChildProcess[] = [];
/** With BENCH_LOG_DIR, each service's log (LOG_LEVEL warn) goes to <dir>/<service>.log. */
const LOG_DIR = process.env.BENCH_LOG_DIR;
function start(name: string, env: NodeJS.ProcessEnv): void {
  const log = LOG_DIR ? openSync(join(LOG_DIR, `${name}.log`), 'a') : 'ignore';
  const child = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', `${REPO_ROOT}services/${name}/dist/main.js`],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', log, 'inherit'] },
  );
  children.push(child);
}

/** Distinct English sentences of the corpus, shortest first left out (a sentence, not a label). */
async function sentences(count: number): Promise<string[]> {
  const corpus = await buildCorpus(count);
  const english = corpus.entries.filter((e) => e.language === 'en').map((e) => e.text);
  const unique = [...new Set(english)].filter((text) => !text.includes('\n'));
  if (unique.length < count)
    throw new Error(`the corpus has ${unique.length} English sentences, not ${count}`);
  return unique.slice(0, count);
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
  const texts = await sentences(ENTITIES * FIELDS + FIELDS);
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
  /** Waits for `expected` rows of entities whose ids start with `ids`; the time the last was written. */
  const waitForRows = async (ids: string, expected: number, timeoutMs: number): Promise<Date> => {
    const where = { entityType: type, entityId: { $like: `${ids}%` } };
    const started = performance.now();
    let told = started;
    for (;;) {
      const rows = await orm.em.fork().count(ContentTranslation, where);
      if (performance.now() - told > 10_000) {
        told = performance.now();
        console.log(`  ${rows} of ${expected} rows after ${((told - started) / 1000).toFixed(0)} s`);
      }
      if (rows >= expected) {
        const [last] = await orm.em
          .fork()
          .find(ContentTranslation, where, { orderBy: { updatedAt: 'desc' }, limit: 1 });
        return last?.updatedAt as Date;
      }
      if (performance.now() - started > timeoutMs)
        throw new Error(`only ${rows} of ${expected} rows after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  // Warm-up: APy's eng-spa pipeline started, the consumer groups joined.
  await report('warm', warmTexts);
  await waitForRows('warm', FIELDS, 120_000);

  const before = await apertiumCommand(file, benchTexts.length);
  console.log(
    `bench:bulk: ${ENTITIES} reports x ${FIELDS} English sentences (Debian's catalogues), en -> es through APy, ${IN_FLIGHT} reports in flight`,
  );
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
  const last = await waitForRows('e-', ENTITIES * FIELDS, 600_000);
  const seconds = (last.getTime() - started) / 1000;
  const after = await apertiumCommand(file, benchTexts.length);
  const baseline = Math.max(before, after);
  const perSecond = (ENTITIES * FIELDS) / seconds;
  console.log(
    `apertium -u -f line eng-spa: ${before.toFixed(0)} lines/s before the pipeline, ${after.toFixed(0)} after`,
  );
  console.log(
    `pipeline: ${ENTITIES * FIELDS} rows in ${seconds.toFixed(2)} s from the first report to the last row ` +
      `(reports accepted in ${accepted.toFixed(2)} s): ${perSecond.toFixed(0)} field translations/s`,
  );
  const verdicts = new Verdicts();
  verdicts.check(
    'pipeline field translations/s / apertium -u -f line eng-spa lines/s',
    (100 * perSecond) / baseline,
    '>=',
    SHARE_TARGET,
    '%',
  );
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
