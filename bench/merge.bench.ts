// npm run bench:merge: reading a 20-field entity with `x-language` through the real gateway
// (GET /api/v1/vendors/:id), beside, in the same run:
//   express:   the reference, a minimal Express app doing the same Redis GET and sending the same bytes
//              (bench/express-reference-server.mjs answering the gateway's own answer, stored in Redis);
//   baseline:  bare Node http doing one Redis GET per request (bench/baseline-server.mjs), for scale;
//   no cache:  bare Node http doing the content store's read query and the merge, no cache
//              (bench/merge-reference-server.mjs): what the gateway's read cache saves.
// autocannon, 50 connections, requests spread over BENCH_ENTITIES vendors (each seeded with 20 source
// fields and their English translations). Targets (issue #32), against the Express reference of the
// same run: at saturation (as fast as 50 connections go) the gateway serves at least 60% of its 2xx/s
// (median of the per-round ratios); at 3000 req/s spread evenly over each second, the gateway's p99 is
// at most 2 x the reference's p99 + 2 ms (judged only if the gateway served that rate, which is its own
// verdict). Last, the cost of one read, which a busy machine does not change much: the gateway's CPU
// time and heap bytes allocated per read (bench/process-cost.ts), against half of the bytes before
// issue 20. Only 2xx answers count as req/s; `-- --check` exits 1 when a verdict is missed
// (bench/verdict.ts); `-- --cost-only` measures only the cost per read.
// Env: BENCH_SECONDS (default 6), BENCH_ROUNDS (3), BENCH_ENTITIES (1000), BENCH_COST_READS (20000),
// BENCH_HEAP_PROFILE (a file: writes a heap profile of the gateway's reads), BENCH_CPU_PROF (a folder
// where each gateway the bench starts writes a V8 CPU profile when it stops), DATABASE_URL, REDIS_URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, openSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { connectDatabase, ContentTranslation, SourceContent, type Orm } from '@tp/db';
import {
  upsertTranslations,
  writeSources,
  type EntitySourceWrites,
  type TranslationWrite,
} from '@tp/pipeline';
import autocannon from 'autocannon';
import { createClient } from 'redis';

import {
  REPO_ROOT,
  createApiKey,
  freePort,
  median,
  medianOfRounds,
  printRoundsTable,
  type Run,
  waitForHttp,
} from './bench-support.js';
import { heapProfile, InspectorSession, measureProcessCost } from './process-cost.js';
import { okPerSecond, phaseReached, Verdicts } from './verdict.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1000);
const FIELDS = 20;
const CONNECTIONS = 50;
/** The rate of the paced phase, at which the p99 target is checked (issue #5's throughput target). */
const TARGET_RPS = 3000;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tp_bench';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const prefix = `bench:${randomBytes(3).toString('hex')}:`;
const idPrefix = `bench-${randomBytes(3).toString('hex')}-`;
const verdicts = new Verdicts();
/** `-- --cost-only`: only the CPU and heap bytes per read (no saturation or paced phase). */
const COST_ONLY = process.argv.slice(2).includes('--cost-only');

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Seeds ENTITIES vendors with 20 fields each (zh-CN source) and their `en` translations, through the
 * content store's writes (the planner's source upsert and the projection's translation upsert).
 */
async function seed(orm: Orm): Promise<void> {
  for (let first = 0; first < ENTITIES; first += 50) {
    const sources: EntitySourceWrites[] = [];
    const translations: TranslationWrite[] = [];
    for (let e = first; e < Math.min(first + 50, ENTITIES); e += 1) {
      const entity = { module: 'catalog', entityType: 'vendor', entityId: `${idPrefix}${e}` };
      const writes = [];
      for (let f = 0; f < FIELDS; f += 1) {
        const text = `供应商 ${e} 的字段 ${f}：优质的产品和快速的服务`;
        const field = {
          field: `field_${f}`,
          text,
          sourceLang: 'zh-CN',
          sourceHash: sha256(text),
          sourceVersion: 1,
        };
        writes.push({ ...field, format: 'text' });
        translations.push({
          ...field,
          entityType: entity.entityType,
          entityId: entity.entityId,
          targetLang: 'en',
          translatedText: `Field ${f} of vendor ${e}: quality products and fast service`,
          requestedAt: 1,
          engine: 'bench',
          truncated: false,
          fallback: false,
          eventId: randomUUID(),
          origin: 'machine',
          writtenBy: null,
        });
      }
      sources.push({ ...entity, writes });
    }
    await orm.em.fork().transactional(async (em) => {
      await writeSources(em, sources);
      await upsertTranslations(em, translations);
    });
  }
}

/**
 * As many requests as `connections` connections allow, for `seconds` seconds, or until `amount`
 * requests were answered.
 */
async function measure(
  base: string,
  headers: Record<string, string>,
  seconds: number,
  { connections = CONNECTIONS, amount }: { connections?: number; amount?: number } = {},
): Promise<Run> {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections,
    headers,
    duration: seconds,
    ...(amount === undefined ? {} : { amount }),
    requests: [
      {
        setupRequest: (request) => {
          next = (next + 1) % ENTITIES;
          return { ...request, path: `${new URL(base).pathname}${idPrefix}${next}` };
        },
      },
    ],
  });
  return {
    // Only successful answers count: a fast 4xx or 5xx is not throughput.
    rps: okPerSecond(result),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** Seconds of paced requests sent before each paced measurement, whose latencies are not counted. */
const PACED_WARM_UP_SECONDS = 1;

/**
 * `rate` requests per second spread evenly over the run (autocannon's overallRate sends each
 * connection's share back to back at the start of every second, which is saturation in bursts), on
 * up to CONNECTIONS keep-alive sockets. Latency counts from when each request was due (or sent, if
 * the timer sent it a little early), so a stall delays the requests behind it instead of hiding them
 * (no coordinated omission). The first PACED_WARM_UP_SECONDS open the sockets and are not counted:
 * the figure is the steady state of clients that keep their connections, not 50 TCP handshakes at
 * once. With BENCH_PACED_TRACE=file, each counted request's due time (ms from the start) and latency
 * are appended to that file, to see when the slow ones happened.
 */
async function paced(
  base: string,
  headers: Record<string, string>,
  seconds: number,
  rate: number,
): Promise<Run> {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  /** When each counted request was due, beside its latency (for BENCH_PACED_TRACE). */
  const dues: number[] = [];
  let failed = 0;
  let ok = 0;
  let next = 0;
  const request = (due: number, counted: boolean) =>
    new Promise<void>((resolve) => {
      next = (next + 1) % ENTITIES;
      const sent = Math.min(due, performance.now());
      const path = `${url.pathname}${idPrefix}${next}`;
      const req = http.request({ host: url.hostname, port: url.port, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (!counted) return resolve();
          if (res.statusCode === 200) ok += 1;
          else failed += 1;
          const latency = performance.now() - sent;
          latencies.push(latency);
          dues.push(due);
          resolve();
        });
      });
      req.on('error', () => {
        if (counted) failed += 1;
        resolve();
      });
      req.end();
    });
  const warmUp = rate * PACED_WARM_UP_SECONDS;
  const began = performance.now();
  const started = began + PACED_WARM_UP_SECONDS * 1000;
  const requests: Promise<void>[] = [];
  for (let i = 0; i < warmUp + rate * seconds; i += 1) {
    const due = began + (i / rate) * 1000;
    // Timers fire about every millisecond: the requests due within one go out together.
    if (due - performance.now() >= 1) await sleep(due - performance.now());
    requests.push(request(due, i >= warmUp));
  }
  await Promise.all(requests);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  if (process.env.BENCH_PACED_TRACE) {
    const lines = dues.map((due, i) => `${(due - started).toFixed(1)} ${latencies[i]?.toFixed(2)}`);
    appendFileSync(process.env.BENCH_PACED_TRACE, `# ${base}\n${lines.join('\n')}\n`);
  }
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN) * 10) / 10;
  // Served means answered 200: a failure does not count toward the rate the phase reached.
  return { rps: ok / elapsed, p50: at(0.5), p99: at(0.99), failed };
}

const children: ChildProcess[] = [];
function start(args: string[], env: NodeJS.ProcessEnv, stdout: 'ignore' | number = 'ignore'): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  children.push(child);
  return child;
}

/** The real gateway on a free port, its node started with `flags`. */
async function startGateway(
  flags: readonly string[],
  stdout: 'ignore' | number = 'ignore',
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const profile = process.env.BENCH_CPU_PROF;
  const child = start(
    [
      ...flags,
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      '--disable-warning=TimeoutNegativeWarning',
      `${REPO_ROOT}services/gateway/dist/main.js`,
    ],
    {
      PORT: String(port),
      DATABASE_URL,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_KEY: process.env.BENCH_RATE_LIMIT ?? '1000000000',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      TRANSLATOR_URL: 'http://127.0.0.1:9',
    },
    stdout,
  );
  await waitForHttp(`http://127.0.0.1:${port}/health`);
  return { port, child };
}

interface Target {
  readonly label: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** Saturation: each target in turn, ROUNDS times; prints the table and judges the ratio. */
async function saturationPhase(targets: readonly Target[]): Promise<void> {
  for (const target of targets) await measure(target.url, target.headers, 2); // warm-up, fills the cache
  const runs = targets.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, target] of targets.entries()) {
      runs[i]?.push(await measure(target.url, target.headers, SECONDS));
    }
  }
  console.log(
    `\nbench:merge  ${FIELDS}-field entities x ${ENTITIES}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s, node ${process.version}\n`,
  );
  const summary = printRoundsTable(
    targets.map((target) => target.label),
    runs,
  );
  // The ratio of each round (the reference, first, and the gateway, last), then their median.
  const last = targets.length - 1;
  const ratios = (runs[last] ?? []).map((run, i) => run.rps / (runs[0]?.[i]?.rps ?? Number.NaN));
  const gateway = summary[last] as Run;
  console.log(
    `\ngateway at saturation: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(' / ')} of the express reference's 2xx/s per round; p99 ${gateway.p99} ms`,
  );
  verdicts.check(
    'gateway/express reference 2xx/s at saturation (median of rounds)',
    median(ratios) * 100,
    '>=',
    60,
    '%',
  );
  if (summary.some((row) => row.failed > 0)) console.log('warning: some requests did not succeed');
}

/** The same reads offered at TARGET_RPS, reference and gateway in turn; judges the gateway's p99. */
async function pacedPhase(reference: Target, gateway: Target): Promise<void> {
  const pacedTargets = [reference, gateway];
  const pacedRuns = pacedTargets.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, target] of pacedTargets.entries()) {
      pacedRuns[i]?.push(await paced(target.url, target.headers, SECONDS, TARGET_RPS));
    }
  }
  console.log(
    `\nat ${TARGET_RPS} req/s spread evenly, up to ${CONNECTIONS} connections, latency from each request's due time:\n`,
  );
  console.log(
    '| run | req/s per round | p99 ms per round | median p50 ms | median p99 ms | non-2xx/errors |',
  );
  console.log('|---|---|---|---|---|---|');
  const [referencePaced, gatewayPaced] = pacedTargets.map((target, i) => {
    const rounds = pacedRuns[i] ?? [];
    const row = medianOfRounds(rounds);
    console.log(
      `| ${target.label} | ${rounds.map((r) => Math.round(r.rps)).join(' / ')} | ${rounds.map((r) => r.p99).join(' / ')} | ${row.p50} | ${row.p99} | ${row.failed} |`,
    );
    return row;
  }) as [Run, Run];
  verdicts.add(
    phaseReached(
      `gateway paced phase at ${TARGET_RPS} req/s (median of rounds)`,
      TARGET_RPS,
      gatewayPaced.rps,
    ),
  );
  verdicts.check(
    `gateway p99 at ${TARGET_RPS} req/s (median of rounds), against 2 x express reference p99 (${referencePaced.p99} ms) + 2 ms`,
    gatewayPaced.p99,
    '<=',
    2 * referencePaced.p99 + 2,
    ' ms',
  );
}

/** What stalls the gateway's event loop: its own Prometheus figures (prom-client default metrics). */
async function printGatewayRuntime(port: number): Promise<void> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const figure = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1]);
  const minorSum = Number(
    /^nodejs_gc_duration_seconds_sum\{[^}]*kind="minor"[^}]*\} (\S+)$/m.exec(metrics)?.[1],
  );
  const minorCount = Number(
    /^nodejs_gc_duration_seconds_count\{[^}]*kind="minor"[^}]*\} (\S+)$/m.exec(metrics)?.[1],
  );
  console.log(
    `gateway over the whole run: ${minorCount} minor GCs, ${((minorSum / minorCount) * 1000).toFixed(1)} ms each on average; ` +
      `event-loop delay max ${(figure('nodejs_eventloop_lag_max_seconds') * 1000).toFixed(0)} ms, ` +
      `p99 ${(figure('nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(0)} ms; old space in use ` +
      `${(Number(/^nodejs_heap_space_size_used_bytes\{space="old"[^}]*\} (\S+)$/m.exec(metrics)?.[1]) / 2 ** 20).toFixed(0)} MiB`,
  );
}

/** Reads per cost measurement, and the connections they are sent on. */
const COST_READS = Number(process.env.BENCH_COST_READS ?? 20_000);
const COST_CONNECTIONS = 10;
/**
 * Heap bytes the gateway allocated per read before issue 20's read lane (docs/benchmarks.md): the
 * issue asks for half of it (56.2 KiB, measured 2026-11-24 by this phase). Bytes per read do not
 * depend on the machine's speed or load.
 */
const BYTES_PER_READ_BEFORE = 57_556;

/**
 * CPU time and heap bytes per read, over COST_READS cache hits at COST_CONNECTIONS connections: a
 * gateway of its own, started with an inspector (see bench/process-cost.ts), and the baseline's CPU.
 */
async function costPhase(auth: Record<string, string>, baseline: { url: string; pid: number }) {
  const inspectPort = await freePort();
  const gateway = await startGateway([`--inspect=127.0.0.1:${inspectPort}`]);
  const inspector = await InspectorSession.connect(inspectPort);
  const options = { connections: COST_CONNECTIONS, amount: COST_READS };
  try {
    const url = `http://127.0.0.1:${gateway.port}/api/v1/vendors/`;
    // Fills the read cache (every entity read twice) and lets the gateway remember the key.
    await measure(url, auth, 600, { connections: COST_CONNECTIONS, amount: 2 * ENTITIES });
    const gatewayCost = await measureProcessCost(gateway.child.pid ?? 0, inspector, COST_READS, () =>
      measure(url, auth, 600, options),
    );
    await measure(baseline.url, {}, 600, { connections: COST_CONNECTIONS, amount: 2 * ENTITIES });
    const baselineCost = await measureProcessCost(baseline.pid, undefined, COST_READS, () =>
      measure(baseline.url, {}, 600, options),
    );
    console.log(
      `\ncost per read over ${COST_READS} reads at ${COST_CONNECTIONS} connections (CPU from /proc, heap from V8's GCProfiler):\n` +
        `gateway bytes allocated per read: ${(gatewayCost.bytesPerRequest / 1024).toFixed(1)} KiB (${gatewayCost.collections} collections)\n` +
        `gateway CPU µs per read: ${gatewayCost.cpuMicrosPerRequest.toFixed(1)}\n` +
        `baseline CPU µs per read: ${baselineCost.cpuMicrosPerRequest.toFixed(1)}`,
    );
    // BENCH_HEAP_PROFILE=file: a heap profile of the gateway over another COST_READS reads.
    if (process.env.BENCH_HEAP_PROFILE) {
      const top = await heapProfile(inspector, process.env.BENCH_HEAP_PROFILE, () =>
        measure(url, auth, 600, options),
      );
      console.log(`gateway's largest allocating functions (share of sampled bytes):\n${top.join('\n')}`);
    }
    verdicts.check(
      'gateway heap bytes allocated per read, against half of before issue 20',
      gatewayCost.bytesPerRequest,
      '<=',
      BYTES_PER_READ_BEFORE / 2,
      ' B',
    );
  } finally {
    inspector.close();
    gateway.child.kill('SIGTERM');
  }
}

const orm = await connectDatabase({ url: DATABASE_URL, poolMax: 4 });
const redis = createClient({ url: REDIS_URL });
await redis.connect();
try {
  await seed(orm);
  const clientKey = createApiKey('client', 'bench:merge');
  // Diagnosis: BENCH_GATEWAY_NODE_FLAGS (e.g. "--trace-gc") go to the gateway's node, and with
  // BENCH_GATEWAY_STDOUT=file its stdout (where V8 traces print) goes to that file.
  const gatewayFlags = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const gatewayStdout = process.env.BENCH_GATEWAY_STDOUT;
  const gateway = await startGateway(gatewayFlags, gatewayStdout ? openSync(gatewayStdout, 'w') : 'ignore');
  const auth = { authorization: `Bearer ${clientKey}`, 'x-language': 'en' };

  // The baseline answers one merged view from Redis: the gateway's own answer for one entity.
  const sample = await fetch(`http://127.0.0.1:${gateway.port}/api/v1/vendors/${idPrefix}0`, {
    headers: auth,
  });
  const sampleText = await sample.text();
  const sampleBody = JSON.parse(sampleText) as { data?: { fields?: Record<string, string> } };
  const translatedFields = Object.values(sampleBody.data?.fields ?? {}).filter((v) =>
    v.startsWith('Field '),
  ).length;
  if (sample.status !== 200 || translatedFields !== FIELDS) {
    throw new Error(
      `gateway answered ${sample.status} with ${translatedFields}/${FIELDS} translated fields: ${JSON.stringify(sampleBody)}`,
    );
  }
  const baselineKey = `${prefix}merge-baseline`;
  await redis.set(baselineKey, JSON.stringify(sampleBody.data));
  // The Express reference sends the gateway's own answer: the same bytes, read with the same GET.
  const answerKey = `${prefix}merge-answer`;
  await redis.set(answerKey, sampleText);
  const [baselinePort, expressPort, noCachePort] = [await freePort(), await freePort(), await freePort()];
  const baselineServer = start([`${REPO_ROOT}bench/baseline-server.mjs`], {
    PORT: String(baselinePort),
    KEY: baselineKey,
  });
  await waitForHttp(`http://127.0.0.1:${baselinePort}/`);
  const baseline = {
    label: 'baseline: node http + 1 Redis GET',
    url: `http://127.0.0.1:${baselinePort}/v/`,
    headers: {},
  };
  const gatewayTarget = {
    label: 'gateway: GET /api/v1/vendors/:id, x-language: en',
    url: `http://127.0.0.1:${gateway.port}/api/v1/vendors/`,
    headers: auth,
  };
  if (!COST_ONLY) {
    start([`${REPO_ROOT}bench/express-reference-server.mjs`], { PORT: String(expressPort), KEY: answerKey });
    start([`${REPO_ROOT}bench/merge-reference-server.mjs`], {
      PORT: String(noCachePort),
      DATABASE_URL,
      LANG_CODE: 'en',
    });
    await waitForHttp(`http://127.0.0.1:${expressPort}/`);
    await waitForHttp(`http://127.0.0.1:${noCachePort}/`);
    const express = {
      label: 'reference: express + 1 Redis GET, the same bytes',
      url: `http://127.0.0.1:${expressPort}/v/`,
      headers: auth,
    };
    const noCache = {
      label: 'no cache: node http + the content store read + merge',
      url: `http://127.0.0.1:${noCachePort}/v/`,
      headers: {},
    };
    await saturationPhase([express, baseline, noCache, gatewayTarget]);
    await pacedPhase(express, gatewayTarget);
    await printGatewayRuntime(gateway.port);
  }
  gateway.child.kill('SIGTERM');
  await costPhase(auth, { url: baseline.url, pid: baselineServer.pid ?? 0 });
  verdicts.finish();
} finally {
  for (const child of children) child.kill('SIGTERM');
  const seeded = { entityType: 'vendor', entityId: { $like: `${idPrefix}%` } };
  await orm.em.fork().nativeDelete(ContentTranslation, seeded);
  await orm.em.fork().nativeDelete(SourceContent, seeded);
  await orm.close(true);
  await redis.close();
}
