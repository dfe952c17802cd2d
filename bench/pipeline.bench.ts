// npm run bench:pipeline: the content pipeline end to end, as processes (gateway, worker, translator)
// on real Kafka, Postgres and Redis, with the project's tiny offline model as the only engine:
//   POST /api/v1/content/catalog/vendor/:id -> outbox -> ContentChanged -> planner -> TranslationRequested
//   -> engine consumer (hot cache miss, offline model) -> TranslationCompleted -> projection -> row.
// Every field text is a different sentence of the model's word list, so each one is a real model run.
// Commands carry 20 fields, the entity of bench:merge.
//
// Beside it, in the same run, the baseline: plain kafkajs, one producer and one consumer group on a topic
// of the same partitions, producing and consuming the same number of messages (no database, no model).
//
// Figures (rows = field translations):
//   drain:      the commands are accepted while the worker is stopped (they wait in the outbox), then the
//               worker starts: rows per second of the pipeline alone (relay, planner, engine consumer,
//               projection), as after an outage or a bulk import;
//   end to end: commands sent as fast as the gateway takes them while the pipeline runs, all on the
//               same two cores (the bench's own client included);
//   latency:    command-to-row p50/p99 at a paced 500 field translations/s (row updated_at minus the
//               moment the command was sent; one machine, one clock).
//   "sustained" is the rate between the 10th and the 90th percentile of row times.
// Targets: the sustained rate, drained and end to end, each at least 25 % of the kafkajs baseline's
// sustained rate in the same run (issue 20; issue 5 asked for 2,000/s, which a slower machine could
// miss with the same code); p99 at most 1 s at 500/s, from a phase that was in fact offered 500/s
// (issue 23). Also printed: CPU ms per 1,000 field translations of each part during the drain, and a
// census of a smaller drain: Postgres round trips (and the worker's bytes sent) and Kafka requests per command.
// `-- --check` exits 1 when a verdict is missed (bench/verdict.ts).
// Env: BENCH_TRANSLATIONS (20000), BENCH_FIELDS (20 per command), BENCH_RATE (500/s),
//      BENCH_LATENCY_SECONDS (15), BENCH_CENSUS_COMMANDS (200), BENCH_CPU_PROF (a folder: the
//      translator's and the worker's CPU profiles of the drain, and the bench's own of the kafkajs
//      baseline, are written there and summed by bucket, printed as µs per field translation and
//      per baseline message; bench/cpu-profile-buckets.ts),
//      DATABASE_URL, REDIS_URL, KAFKA_BROKERS (set by scripts/bench.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { ALL_TOPICS } from '@tp/contracts';
import {
  connectDatabase,
  ContentTranslation,
  OutboxMessage,
  SourceContent,
  TranslationConfig,
  type Orm,
} from '@tp/db';
import { ensureTopics } from '@tp/kafka';
import { buildTinyModel, ZH_EN_LEXICON } from '@tp/models';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';

import {
  REPO_ROOT,
  createApiKey,
  freePort,
  mainThreadCpuMs,
  otherThreadsCpuMs,
  processCpuMs,
  waitForHttp,
} from './bench-support.js';
import {
  bucketTable,
  summariseProfile,
  type CpuProfile,
  type ProcessProfile,
} from './cpu-profile-buckets.js';
import { countingProxy } from './pg-round-trips.js';
import { forwardStderr, InspectorSession } from './process-cost.js';
import { phaseReached, Verdicts } from './verdict.js';

const TRANSLATIONS = Number(process.env.BENCH_TRANSLATIONS ?? 20_000);
const FIELDS = Number(process.env.BENCH_FIELDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);
/** Commands of the census phase (round trips and Kafka requests counted). */
const CENSUS_COMMANDS = Number(process.env.BENCH_CENSUS_COMMANDS ?? 200);
const IN_FLIGHT = 32;
/** Issue 20: the pipeline's sustained rate, drained and end to end, as a share (%) of the kafkajs baseline's. */
const DRAIN_SHARE_TARGET = 25;
/** When set, the drain's CPU profiles (translator, worker) and the baseline's (this process) go there. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** The profiles' sampling interval, µs (V8's default is 1,000; a drain lasts a few seconds). */
const PROFILE_INTERVAL_MICROS = 250;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tp_bench';
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const run = randomBytes(3).toString('hex');
const prefix = `bench.${run}.`;

// ---- sentences: every field text is a different sequence of the model's words ----------------------
const WORDS = ZH_EN_LEXICON.entries.map(([source]) => source).filter((word) => /\p{Script=Han}/u.test(word));
let sentenceNo = Math.floor(Math.random() * 1_000_000);
/** The next sentence: the counter written in base WORDS.length, a word per digit, ending with 。 */
function nextSentence(): string {
  let n = sentenceNo++;
  const words: string[] = [];
  do {
    words.push(WORDS[n % WORDS.length] as string);
    n = Math.floor(n / WORDS.length);
  } while (n > 0);
  return `${words.join('')}。`;
}

// ---- statistics ---------------------------------------------------------------------------------------
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
const sortNumbers = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/** Events per second between the 10th and 90th percentile of their times (ms). */
function sustainedRate(times: readonly number[]): number {
  const sorted = sortNumbers(times);
  const from = percentile(sorted, 10);
  const to = percentile(sorted, 90);
  return (0.8 * sorted.length) / ((to - from) / 1000);
}

// ---- processes ----------------------------------------------------------------------------------------
const services = new Map<string, ChildProcess>();
/** With BENCH_CPU_PROF: the inspector port each service listens on, for profiling a phase of it. */
const inspectorPorts = new Map<string, number>();
async function startService(name: string, env: NodeJS.ProcessEnv): Promise<void> {
  const main = `${REPO_ROOT}services/${name}/dist/main.js`;
  const inspect = PROFILE_DIR ? [`--inspect=127.0.0.1:${await freePort()}`] : [];
  if (inspect[0]) inspectorPorts.set(name, Number(inspect[0].split(':').at(-1)));
  const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', ...inspect, main], {
    env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', ...env },
    stdio: ['ignore', 'ignore', PROFILE_DIR ? 'pipe' : 'inherit'],
  });
  if (PROFILE_DIR) forwardStderr(child);
  services.set(name, child);
}

// ---- CPU profiles (BENCH_CPU_PROF) -----------------------------------------------------------------------
/** Profiles some services from now on; the returned function stops, saves and summarises each. */
async function profileServices(
  names: readonly string[],
): Promise<(label: string) => Promise<ProcessProfile[]>> {
  const started = await Promise.all(
    names.map(async (name) => {
      const session = await InspectorSession.connect(inspectorPorts.get(name) as number);
      await session.call('Profiler.enable');
      await session.call('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_MICROS });
      const pid = services.get(name)?.pid as number;
      const [cpuBefore, mainBefore, threadsBefore] = [
        processCpuMs(pid),
        mainThreadCpuMs(pid),
        otherThreadsCpuMs(pid),
      ];
      await session.call('Profiler.start');
      return { name, session, pid, cpuBefore, mainBefore, threadsBefore };
    }),
  );
  return (label) =>
    Promise.all(
      started.map(async ({ name, session, pid, cpuBefore, mainBefore, threadsBefore }) => {
        const { profile } = await session.call<{ profile: CpuProfile }>('Profiler.stop');
        const cpuMicros = (processCpuMs(pid) - cpuBefore) * 1000;
        const mainThreadMicros = (mainThreadCpuMs(pid) - mainBefore) * 1000;
        const otherThreads = new Map(
          [...otherThreadsCpuMs(pid)].map(([thread, ms]) => [
            thread,
            (ms - (threadsBefore.get(thread) ?? 0)) * 1000,
          ]),
        );
        session.close();
        await saveProfile(`${name}-${label}`, profile);
        return { name, summary: summariseProfile(profile), mainThreadMicros, cpuMicros, otherThreads };
      }),
    );
}

/** Profiles this process (the kafkajs baseline's producer and consumer) while `work` runs. */
async function profileSelf<T>(work: () => Promise<T>): Promise<[T, ProcessProfile]> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_MICROS });
  const [cpuBefore, mainBefore] = [process.cpuUsage(), mainThreadCpuMs(process.pid)];
  await session.post('Profiler.start');
  const result = await work();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  const cpu = process.cpuUsage(cpuBefore);
  const mainThreadMicros = (mainThreadCpuMs(process.pid) - mainBefore) * 1000;
  session.disconnect();
  await saveProfile('bench-baseline', profile);
  return [
    result,
    {
      name: 'kafkajs baseline',
      summary: summariseProfile(profile),
      mainThreadMicros,
      cpuMicros: cpu.user + cpu.system,
    },
  ];
}

async function saveProfile(name: string, profile: CpuProfile): Promise<void> {
  await mkdir(PROFILE_DIR as string, { recursive: true });
  await writeFile(join(PROFILE_DIR as string, `${name}.cpuprofile`), JSON.stringify(profile));
}

/** SIGTERM, then waits for the exit (a service stops gracefully: consumers commit and leave). */
async function stopService(name: string): Promise<void> {
  const child = services.get(name);
  services.delete(name);
  if (!child || child.exitCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'));
}

// ---- CPU per process (Linux /proc) ----------------------------------------------------------------------
const BENCH_APPLICATION = 'bench:pipeline';

interface CpuOfProcess {
  readonly part: string;
  readonly seconds: number;
}

/** A Postgres backend serving the bench's database ("postgres: [cluster: ]<user> <database> <client> <state>"). */
const BENCH_BACKEND = new RegExp(
  `^postgres: (?:\\S+: )?${decodeURIComponent(new URL(DATABASE_URL).username || 'postgres')} ${new URL(DATABASE_URL).pathname.slice(1)} `,
);

/**
 * CPU seconds used so far by each part: our three services, Postgres (the backends of the bench's
 * database but the bench's own, and apart from them its other processes: WAL writer, checkpointer, other databases'
 * backends), the broker and Redis. On a shared machine the broker, Redis and "postgres other" also
 * serve others.
 */
async function cpuSeconds(): Promise<Map<string, CpuOfProcess>> {
  const totals = new Map<string, CpuOfProcess>();
  const { rows: own } = await pool.query<{ pid: number }>(
    'select pid from pg_stat_activity where application_name = $1',
    [BENCH_APPLICATION],
  );
  const ownBackends = new Set(own.map((r) => String(r.pid)));
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || ownBackends.has(pid)) continue;
    const [stat, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''),
      readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
    ]);
    const service = [...services].find(([, child]) => String(child.pid) === pid)?.[0];
    const part =
      service ??
      (BENCH_BACKEND.test(cmdline)
        ? 'postgres'
        : /postgres/.test(cmdline)
          ? 'postgres other'
          : /kafka\.Kafka/.test(cmdline)
            ? 'kafka'
            : /redis-server/.test(cmdline)
              ? 'redis'
              : undefined);
    if (!part || !stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in 1/100 s
    // Keyed by pid and start time: a process that ended between two readings drops out of both.
    totals.set(`${pid}:${fields[19]}`, { part, seconds: ticks / 100 });
  }
  return totals;
}

/**
 * What each part used between two cpuSeconds() readings: as a share of one core over `seconds`, and
 * in CPU milliseconds per 1,000 rows (load-insensitive: a busy machine slows the drain, not the work
 * each row costs).
 */
function cpuUse(
  before: Map<string, CpuOfProcess>,
  after: Map<string, CpuOfProcess>,
  seconds: number,
  rows: number,
): { shares: string; perThousand: string; totalPerThousand: number } {
  const byPart = new Map<string, number>();
  for (const [process, { part, seconds: total }] of after) {
    byPart.set(part, (byPart.get(part) ?? 0) + total - (before.get(process)?.seconds ?? 0));
  }
  const used = [...byPart].sort((a, b) => b[1] - a[1]);
  const perThousand = (cpu: number) => (cpu * 1000 * 1000) / rows;
  return {
    shares: used.map(([part, cpu]) => `${part} ${(cpu / seconds).toFixed(2)}`).join(', '),
    perThousand: used.map(([part, cpu]) => `${part} ${perThousand(cpu).toFixed(0)}`).join(', '),
    totalPerThousand: perThousand(used.reduce((sum, [, cpu]) => sum + cpu, 0)),
  };
}

/**
 * The kafkajs baseline's CPU per message, in µs: this process (producer and consumer) and the broker,
 * over the whole baseline run (its 3-second group settling included, so slightly more than the work).
 */
function baselineCpuPerMessage(
  before: Map<string, CpuOfProcess>,
  after: Map<string, CpuOfProcess>,
  bench: NodeJS.CpuUsage,
): { bench: number; kafka: number; total: number } {
  let kafkaSeconds = 0;
  for (const [process, { part, seconds }] of after) {
    if (part === 'kafka') kafkaSeconds += seconds - (before.get(process)?.seconds ?? 0);
  }
  const perMessage = (micros: number) => micros / TRANSLATIONS;
  const own = perMessage(bench.user + bench.system);
  const kafkaMicros = perMessage(kafkaSeconds * 1e6);
  return { bench: own, kafka: kafkaMicros, total: own + kafkaMicros };
}

// ---- the baseline: plain kafkajs produce -> consume ---------------------------------------------------
interface BaselineRun {
  readonly perSecond: number;
  readonly sustained: number;
  readonly p50: number;
  readonly p99: number;
}

/** Produces `count` messages (paced at `rate`/s when given) and consumes them; latency from the send time. */
async function kafkaBaseline(kafka: Kafka, count: number, rate?: number): Promise<BaselineRun> {
  const topic = `${prefix}baseline.${rate ?? 'max'}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic, numPartitions: 6, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  await admin.disconnect();

  const received: number[] = [];
  const latencies: number[] = [];
  let done: () => void = () => undefined;
  const allReceived = new Promise<void>((resolve) => (done = resolve));
  const consumer = kafka.consumer({ groupId: `${topic}.group`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const now = Date.now();
      received.push(now);
      latencies.push(now - Number(message.value?.toString()));
      if (received.length >= count) done();
    },
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await sleep(3000); // the group settles

  const started = Date.now();
  const batch = rate ? Math.max(1, Math.round(rate / 50)) : 100;
  for (let sent = 0; sent < count; sent += batch) {
    if (rate) {
      const due = started + (sent / rate) * 1000;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    const messages = Array.from({ length: Math.min(batch, count - sent) }, (_, i) => ({
      key: `k${sent + i}`,
      value: String(Date.now()),
    }));
    await producer.send({ topic, acks: -1, messages });
  }
  await allReceived;
  const elapsed = (Math.max(...received) - started) / 1000;
  await Promise.all([producer.disconnect(), consumer.disconnect()]);
  const sorted = sortNumbers(latencies);
  return {
    perSecond: count / elapsed,
    sustained: sustainedRate(received),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

// ---- the pipeline -------------------------------------------------------------------------------------
interface PipelineRun {
  readonly rows: number;
  readonly perSecond: number;
  readonly sustained: number;
  readonly commandsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly engines: string;
}

interface Sent {
  /** Each phase reports an entity type of its own, so its rows are counted through the index. */
  readonly entityType: string;
  readonly commands: number;
  readonly started: number;
  readonly commandsPerSecond: number;
  readonly sentAt: ReadonlyMap<string, number>;
}

/** Sends `commands` commands of FIELDS new sentences each, IN_FLIGHT at once, paced at `rate` rows/s if given. */
async function sendCommands(
  gateway: string,
  key: string,
  label: string,
  commands: number,
  rate?: number,
): Promise<Sent> {
  const sentAt = new Map<string, number>();
  const entityType = `vendor-${run}-${label}`;
  let next = 0;
  const started = Date.now();
  const sendOne = async (): Promise<void> => {
    const n = next++;
    if (rate) {
      const due = started + (n / (rate / FIELDS)) * 1000;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    const id = String(n);
    const fields: Record<string, string> = {};
    for (let f = 0; f < FIELDS; f += 1) fields[`field_${f}`] = nextSentence();
    sentAt.set(id, Date.now());
    const res = await fetch(`${gateway}/api/v1/content/catalog/${entityType}/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source_lang: 'zh-CN', source_version: 1, fields }),
    });
    if (res.status !== 202) throw new Error(`command ${id} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const lanes = Array.from({ length: IN_FLIGHT }, async () => {
    while (next < commands) await sendOne();
  });
  await Promise.all(lanes);
  return {
    entityType,
    commands,
    started,
    commandsPerSecond: commands / ((Date.now() - started) / 1000),
    sentAt,
  };
}

/** Waits for every row of the sent commands, then reads their times; rates count from `from`. */
async function rowsOf(orm: Orm, sent: Sent, from: number | 'first-row'): Promise<PipelineRun> {
  const expected = sent.commands * FIELDS;
  const deadline = Date.now() + 300_000;
  let count = 0;
  while (Date.now() < deadline) {
    count = await orm.em.fork().count(ContentTranslation, { entityType: sent.entityType });
    if (count >= expected) break;
    await sleep(200);
  }
  if (count < expected) throw new Error(`${sent.entityType}: ${count}/${expected} rows after 300 s`);

  const found = await orm.em
    .fork()
    .find(
      ContentTranslation,
      { entityType: sent.entityType },
      { fields: ['entityId', 'updatedAt', 'engine'] },
    );
  const rows = found.map((r) => ({ entity_id: r.entityId, at: r.updatedAt.getTime(), engine: r.engine }));
  const rowTimes = rows.map((r) => r.at);
  const start = from === 'first-row' ? Math.min(...rowTimes) : from;
  const latencies = sortNumbers(rows.map((r) => Number(r.at) - (sent.sentAt.get(r.entity_id) ?? Number.NaN)));
  const engines = new Map<string, number>();
  for (const r of rows) engines.set(r.engine, (engines.get(r.engine) ?? 0) + 1);
  return {
    rows: rows.length,
    perSecond: rows.length / ((Math.max(...rowTimes) - start) / 1000),
    sustained: sustainedRate(rowTimes),
    commandsPerSecond: sent.commandsPerSecond,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    engines: [...engines].map(([engine, n]) => `${engine} ${n}`).join(', '),
  };
}

// ---- census: round trips and Kafka requests per command --------------------------------------------
/** `kafka_client_requests_total` of a service's /metrics, summed by API. */
async function kafkaRequests(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const byApi = new Map<string, number>();
  for (const [, api, count] of text.matchAll(
    /^kafka_client_requests_total\{[^}]*api="([^"]+)"[^}]*\} (\d+)$/gm,
  )) {
    byApi.set(api as string, (byApi.get(api as string) ?? 0) + Number(count));
  }
  return byApi;
}

/** "12.3 (Fetch 5.1, Produce 2.0, ...)": requests per command, the largest APIs named. */
function perCommand(byApi: Map<string, number>, commands: number): string {
  const total = [...byApi.values()].reduce((sum, n) => sum + n, 0);
  const parts = [...byApi]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([api, n]) => `${api} ${(n / commands).toFixed(2)}`);
  return `${(total / commands).toFixed(2)} (${parts.join(', ')})`;
}

// ---- main ---------------------------------------------------------------------------------------------
const verdicts = new Verdicts();
const kafka = new Kafka({ brokers: BROKERS, clientId: 'bench-pipeline', logLevel: logLevel.NOTHING });
// Named, so that its backends (the bench counting rows) are not counted as the pipeline's CPU.
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2, application_name: BENCH_APPLICATION });
const orm = await connectDatabase({ url: DATABASE_URL, poolMax: 2, applicationName: BENCH_APPLICATION });
const models = await mkdtemp(join(tmpdir(), 'tp-bench-models-'));
try {
  await buildTinyModel(join(models, 'opus-mt-zh-en-tiny'), { lexicon: ZH_EN_LEXICON });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix);
  await admin.disconnect();
  await orm.em
    .fork()
    .nativeUpdate(
      TranslationConfig,
      { id: 1 },
      { targetLanguages: ['en'], enabled: true, updatedAt: new Date() },
    );
  // The rows earlier runs deleted stay as dead rows until a vacuum, and the CI machines' Postgres runs
  // with autovacuum off: without this, each run on the same bench database is slower than the last.
  // The whole bench database, so no table is named here (each table's SQL belongs to its owner).
  await pool.query('vacuum analyze');
  const clientKey = createApiKey('client', 'bench:pipeline');
  const ports = { gateway: await freePort(), worker: await freePort(), translator: await freePort() };
  const env = {
    DATABASE_URL,
    KAFKA_BROKERS: BROKERS.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_KEY_PREFIX: `bench:${run}:`,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
    MODELS_DIR: models,
    // The tiny zh -> en model translates the bench's texts (a test model: allowed explicitly).
    ALLOW_TEST_MODELS: 'true',
    RATE_LIMIT_PER_KEY: '1000000000',
  };
  const start = async (name: 'translator' | 'worker' | 'gateway', extra: NodeJS.ProcessEnv = {}) => {
    await startService(name, { ...env, PORT: String(ports[name]), ...extra });
    // 120 s, as bench:apertium: a service takes tens of seconds to load its modules on a loaded machine.
    await waitForHttp(`http://127.0.0.1:${ports[name]}/health`, 120_000);
  };
  for (const name of ['translator', 'worker', 'gateway'] as const) await start(name);
  const gateway = `http://127.0.0.1:${ports.gateway}`;

  console.log(
    `bench:pipeline: ${TRANSLATIONS} field translations (${FIELDS} fields per command) drained and end to end, ` +
      `then ${RATE}/s for ${LATENCY_SECONDS} s`,
  );
  const warmup = await sendCommands(gateway, clientKey, 'warmup', 10); // model loaded, groups joined
  await rowsOf(orm, warmup, warmup.started);

  const [brokerBefore, benchBefore] = [await cpuSeconds(), process.cpuUsage()];
  const [baseline, baselineProfile] = PROFILE_DIR
    ? await profileSelf(() => kafkaBaseline(kafka, TRANSLATIONS))
    : [await kafkaBaseline(kafka, TRANSLATIONS), undefined];
  const baselineCpu = baselineCpuPerMessage(brokerBefore, await cpuSeconds(), process.cpuUsage(benchBefore));

  await stopService('worker');
  const queued = await sendCommands(gateway, clientKey, 'drain', TRANSLATIONS / FIELDS);
  await start('worker');
  const stopProfiles = PROFILE_DIR ? await profileServices(['translator', 'worker']) : undefined;
  const [cpuBefore, drainStarted] = [await cpuSeconds(), Date.now()];
  const drain = await rowsOf(orm, queued, 'first-row');
  const drainCpu = cpuUse(cpuBefore, await cpuSeconds(), (Date.now() - drainStarted) / 1000, drain.rows);
  if (stopProfiles && baselineProfile) {
    const profiles = await stopProfiles('drain');
    console.log(
      `\nCPU profiles (${PROFILE_DIR}, sampled every ${PROFILE_INTERVAL_MICROS} µs), by bucket: the drain's ` +
        `processes in µs per field translation (${drain.rows}), the kafkajs baseline's producer and consumer ` +
        `(this process) in µs per message (${TRANSLATIONS}):`,
    );
    console.log(bucketTable(profiles, drain.rows));
    console.log(bucketTable([baselineProfile], TRANSLATIONS));
    console.log('');
  }
  // At once too: on a loaded machine a later phase may time out, and the drain is the load-insensitive figure.
  console.log(
    `drain: ${drain.sustained.toFixed(0)}/s sustained beside kafkajs ${baseline.sustained.toFixed(0)}/s; ` +
      `CPU ms per 1,000 field translations: ${drainCpu.perThousand} (total ${drainCpu.totalPerThousand.toFixed(0)})`,
  );

  const fast = await sendCommands(gateway, clientKey, 'max', TRANSLATIONS / FIELDS);
  const endToEnd = await rowsOf(orm, fast, fast.started);

  const baselinePaced = await kafkaBaseline(kafka, RATE * LATENCY_SECONDS, RATE);
  const paced = await sendCommands(gateway, clientKey, 'paced', (RATE * LATENCY_SECONDS) / FIELDS, RATE);
  const latency = await rowsOf(orm, paced, paced.started);

  // Census: a drain of CENSUS_COMMANDS by a fresh worker and translator, each talking to Postgres
  // through a proxy that counts its round trips; their Kafka requests from their /metrics.
  await Promise.all([stopService('worker'), stopService('translator')]);
  const counted = await sendCommands(gateway, clientKey, 'census', CENSUS_COMMANDS);
  const database = new URL(DATABASE_URL);
  const proxies = {
    worker: await countingProxy(database.hostname, Number(database.port || 5432)),
    translator: await countingProxy(database.hostname, Number(database.port || 5432)),
  };
  const through = (proxy: { port: number }) => {
    const url = new URL(DATABASE_URL);
    url.port = String(proxy.port);
    return { DATABASE_URL: url.toString() };
  };
  await start('translator', through(proxies.translator));
  await start('worker', through(proxies.worker));
  await rowsOf(orm, counted, counted.started);
  const census = {
    worker: proxies.worker.roundTrips() / CENSUS_COMMANDS,
    translator: proxies.translator.roundTrips() / CENSUS_COMMANDS,
    workerKb: proxies.worker.bytesSent() / 1024 / CENSUS_COMMANDS,
    kafkaWorker: perCommand(await kafkaRequests(ports.worker), CENSUS_COMMANDS),
    kafkaTranslator: perCommand(await kafkaRequests(ports.translator), CENSUS_COMMANDS),
  };
  await Promise.all([stopService('worker'), stopService('translator')]);
  await Promise.all([proxies.worker.close(), proxies.translator.close()]);

  const f = (n: number) => n.toFixed(0).padStart(11);
  const line = (label: string, r: { perSecond: number; sustained: number; p50?: number; p99?: number }) =>
    console.log(
      `${label.padEnd(40)}${f(r.perSecond)}${f(r.sustained)}${r.p50 === undefined ? '-'.padStart(11) : f(r.p50)}${r.p99 === undefined ? '-'.padStart(11) : f(r.p99)}`,
    );
  console.log(
    `\n${''.padEnd(40)}${'per s'.padStart(11)}${'sustained'.padStart(11)}${'p50 ms'.padStart(11)}${'p99 ms'.padStart(11)}`,
  );
  line('baseline: kafkajs produce -> consume', baseline);
  // Its command-to-row times include the wait while the worker was stopped: not a latency figure.
  line('pipeline: drain (outbox -> rows)', { perSecond: drain.perSecond, sustained: drain.sustained });
  line('pipeline: end to end (command -> row)', endToEnd);
  line(`baseline: kafkajs at ${RATE}/s`, baselinePaced);
  line(`pipeline: command -> row at ${RATE}/s`, latency);
  console.log(
    `\ncommands accepted at ${queued.commandsPerSecond.toFixed(0)}/s (worker stopped), ` +
      `${fast.commandsPerSecond.toFixed(0)}/s (end to end), ${paced.commandsPerSecond.toFixed(0)}/s (paced); ` +
      `rows by engine: ${drain.engines}`,
  );
  console.log(`CPU during the drain, in cores (2 on this machine): ${drainCpu.shares}`);
  console.log(
    `CPU ms per 1,000 field translations drained: ${drainCpu.perThousand} (total ${drainCpu.totalPerThousand.toFixed(0)})`,
  );
  // What bounds the ratio when CPU is what runs out (a busy machine, or both cores used): the baseline
  // spends far less CPU per message than the pipeline per field translation.
  const drainMicros = drainCpu.totalPerThousand;
  console.log(
    `CPU µs per message of the kafkajs baseline: ${baselineCpu.total.toFixed(0)} (this process ${baselineCpu.bench.toFixed(0)}, ` +
      `kafka ${baselineCpu.kafka.toFixed(0)}); per field translation drained: ${drainMicros.toFixed(0)}; ` +
      `the drain's share of the baseline when CPU-bound: at most ${((100 * baselineCpu.total) / drainMicros).toFixed(1)}%`,
  );
  console.log(
    `census, ${CENSUS_COMMANDS} commands of ${FIELDS} fields drained by a fresh worker and translator ` +
      `(their start-up included), per command: Postgres round trips worker ${census.worker.toFixed(2)} ` +
      `(${census.workerKb.toFixed(1)} KB sent), ` +
      `translator ${census.translator.toFixed(2)}; Kafka requests worker ${census.kafkaWorker}, ` +
      `translator ${census.kafkaTranslator}`,
  );
  // Each figure is judged on its own: a drain that misses is not rescued by the end-to-end figure.
  console.log('');
  // Issue 20: judged against the kafkajs baseline of the same run, so a slower or busier machine
  // moves both sides of the ratio (the rates themselves are in the table above).
  const ofBaseline = (sustained: number) => (100 * sustained) / baseline.sustained;
  verdicts.check(
    'drain: field translations/s sustained / kafkajs baseline sustained',
    ofBaseline(drain.sustained),
    '>=',
    DRAIN_SHARE_TARGET,
    '%',
  );
  verdicts.check(
    'end to end: field translations/s sustained / kafkajs baseline sustained',
    ofBaseline(endToEnd.sustained),
    '>=',
    DRAIN_SHARE_TARGET,
    '%',
  );
  verdicts.add(phaseReached(`paced phase at ${RATE}/s`, RATE, paced.commandsPerSecond * FIELDS));
  verdicts.check(`command -> row p99 at ${RATE}/s`, latency.p99, '<=', 1000, ' ms');
  verdicts.finish();
} finally {
  await Promise.all([...services.keys()].map(stopService));
  // The bench database keeps only what other benches need.
  const ours = { entityType: { $like: `vendor-${run}-%` } };
  await orm.em.fork().nativeDelete(ContentTranslation, ours);
  await orm.em.fork().nativeDelete(SourceContent, ours);
  await orm.em.fork().nativeDelete(OutboxMessage, { topic: { $like: `${prefix}%` } });
  await orm.close(true);
  await pool.end();
  await rm(models, { recursive: true, force: true });
}
