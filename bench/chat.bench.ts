// npm run bench:chat: POST /v1/chat/completions through the real gateway process beside direct calls to
// the same upstream double (bench/openai-upstream.ts, in a process of its own), in the same run. Target
// (issue #7): the gateway adds at most 5 ms to p99 latency (each p99 figure is its own verdict; only 2xx
// answers count as req/s; `-- --check` exits 1 when a verdict is missed, bench/verdict.ts).
// - Latency: CONCURRENCY requests in flight, BENCH_REQUESTS per target per round, streamed (time to the
//   first byte of the body, and to the end of the stream) and non-streamed (to the end of the body).
// - Throughput: non-streamed, autocannon with CONNECTIONS connections for BENCH_SECONDS per target per round.
// Direct and gateway are measured in turn, round after round, so a slow spell of this shared machine
// hits both; the figures are medians over rounds, and "added" is the median of the per-round differences.
// Both targets get the same body; the streamed one asks for usage, as the gateway always does upstream.
// The latency target is what the gateway adds to one request, so by default one request is in flight: with
// more, the figures also hold the time requests wait behind each other (see the throughput table for load).
// Env: BENCH_ROUNDS (default 3), BENCH_REQUESTS (default 2000), BENCH_CONCURRENCY (in flight, default 1),
// BENCH_SECONDS (default 6), BENCH_CHUNK_DELAY_MS (upstream pause between stream chunks, default 0),
// DATABASE_URL, KAFKA_BROKERS; the gateway inherits the environment (e.g. CHAT_GUARDRAIL).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';

import autocannon from 'autocannon';

import { REPO_ROOT, freePort, waitForHttp } from './bench-support.js';
import { percentile } from './latency-samples.js';
import { okPerSecond, Verdicts } from './verdict.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 0);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const CONNECTIONS = 50;
const TARGET_MS = 5;
const verdicts = new Verdicts();
const MODEL = 'gpt-bench';
const UPSTREAM_KEY = `sk-bench-${randomBytes(8).toString('hex')}`;
// Eight words; the double answers `bench:` and the words reversed.
const MESSAGE = 'Please summarise the weather forecast for Paris tomorrow';
const ANSWER = `bench: ${MESSAGE.split(' ').reverse().join(' ')}`;
const messages = [{ role: 'user', content: MESSAGE }];
const plainBody = JSON.stringify({ model: MODEL, messages });
const streamBody = JSON.stringify({
  model: MODEL,
  messages,
  stream: true,
  stream_options: { include_usage: true },
});

const children: ChildProcess[] = [];
function start(args: string[], env: NodeJS.ProcessEnv, stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  children.push(child);
  return child;
}

/** The first line a child prints on stdout (the upstream double's URL). */
async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const timeout = setTimeout(() => child.kill('SIGTERM'), 30_000);
  try {
    for await (const line of lines) return line.trim();
    throw new Error(`the upstream double exited (code ${child.exitCode}) before printing its URL`);
  } finally {
    clearTimeout(timeout);
    lines.close();
  }
}

interface Target {
  readonly label: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

interface Latency {
  readonly ttfb50: number;
  readonly ttfb99: number;
  readonly total50: number;
  readonly total99: number;
  readonly failed: number;
}

interface Throughput {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** `requests` calls, CONCURRENCY at a time, each body read to its end; only good answers are timed. */
async function latency(target: Target, streamed: boolean, requests: number): Promise<Latency> {
  const ttfbs: number[] = [];
  const totals: number[] = [];
  let failed = 0;
  let issued = 0;
  const one = async (): Promise<void> => {
    const started = performance.now();
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: target.headers,
        body: streamed ? streamBody : plainBody,
      });
      const reader = res.body?.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let first: number | undefined;
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        first ??= performance.now();
        text += decoder.decode(chunk.value, { stream: true });
      }
      const end = performance.now();
      const good = streamed
        ? text.endsWith('data: [DONE]\n\n') && text.includes('"finish_reason":"stop"')
        : text.includes(`"content":"${ANSWER}"`);
      if (!res.ok || !good) {
        failed += 1;
        return;
      }
      ttfbs.push((first ?? end) - started);
      totals.push(end - started);
    } catch {
      failed += 1;
    }
  };
  const worker = async (): Promise<void> => {
    while (issued < requests) {
      issued += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return {
    ttfb50: percentile(ttfbs, 50),
    ttfb99: percentile(ttfbs, 99),
    total50: percentile(totals, 50),
    total99: percentile(totals, 99),
    failed,
  };
}

async function throughput(target: Target, seconds: number): Promise<Throughput> {
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    method: 'POST',
    headers: target.headers,
    body: plainBody,
    duration: seconds,
  });
  return {
    // Only successful answers count: a fast 4xx or 5xx is not throughput.
    rps: okPerSecond(result),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

const ms = (value: number): string => value.toFixed(2);
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;

try {
  const upstream = start(
    ['--conditions=@tp/source', '--import', 'tsx', `${REPO_ROOT}bench/openai-upstream.ts`],
    {
      UPSTREAM_API_KEY: UPSTREAM_KEY,
      UPSTREAM_MODEL: MODEL,
      UPSTREAM_CHUNK_DELAY_MS: String(CHUNK_DELAY_MS),
    },
    'pipe',
  );
  const upstreamUrl = await firstLine(upstream);
  const gatewayPort = await freePort();
  start(['--disable-warning=TimeoutNegativeWarning', `${REPO_ROOT}services/gateway/dist/main.js`], {
    PORT: String(gatewayPort),
    REDIS_KEY_PREFIX: `bench:${randomBytes(3).toString('hex')}:`,
    // The limiter stays on (its cost is part of the path), with a budget the run cannot exhaust.
    RATE_LIMIT_PER_KEY: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    TRANSLATOR_URL: 'http://127.0.0.1:9',
    BENCH_UPSTREAM_KEY: UPSTREAM_KEY,
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'bench', base_url: upstreamUrl, api_key_env: 'BENCH_UPSTREAM_KEY', models: [MODEL] },
    ]),
  });
  const floorPort = await freePort();
  start([`${REPO_ROOT}bench/proxy-floor-server.mjs`], {
    PORT: String(floorPort),
    UPSTREAM_URL: upstreamUrl,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
  });
  await waitForHttp(`http://127.0.0.1:${gatewayPort}/health`);
  await waitForHttp(`http://127.0.0.1:${floorPort}/`);
  const clientKey = execFileSync(
    process.execPath,
    [
      `${REPO_ROOT}services/gateway/dist/keys/keys.cli.js`,
      'create',
      '--role',
      'client',
      '--name',
      'bench:chat',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  ).trim();

  const json = { 'content-type': 'application/json' };
  const targets: Target[] = [
    {
      label: 'direct: upstream double',
      url: `${upstreamUrl}/chat/completions`,
      headers: { ...json, authorization: `Bearer ${UPSTREAM_KEY}` },
    },
    {
      label: 'gateway: POST /v1/chat/completions',
      url: `http://127.0.0.1:${gatewayPort}/v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${clientKey}` },
    },
    {
      label: 'reference: minimal Node proxy (bench/proxy-floor-server.mjs)',
      url: `http://127.0.0.1:${floorPort}/`,
      headers: json,
    },
  ];

  // Warm-up (JIT, connection pools, the key lookup), not counted.
  for (const target of targets) {
    await latency(target, true, 500);
    await latency(target, false, 500);
    await throughput(target, 2);
  }
  const streamed = targets.map(() => [] as Latency[]);
  const plain = targets.map(() => [] as Latency[]);
  const loaded = targets.map(() => [] as Throughput[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, target] of targets.entries()) streamed[i]?.push(await latency(target, true, REQUESTS));
    for (const [i, target] of targets.entries()) plain[i]?.push(await latency(target, false, REQUESTS));
    for (const [i, target] of targets.entries()) loaded[i]?.push(await throughput(target, SECONDS));
  }

  console.log(
    `\nbench:chat  ${ROUNDS} rounds; latency: ${REQUESTS} requests per target per round, ${CONCURRENCY} in flight; ` +
      `throughput: ${CONNECTIONS} connections, ${SECONDS} s per target per round; upstream chunk delay ${CHUNK_DELAY_MS} ms; ` +
      `node ${process.version}\n`,
  );
  console.log(`Latency, ${CONCURRENCY} in flight (ms, median of rounds):\n`);
  console.log('| target | request | TTFB p50 | TTFB p99 | total p50 | total p99 | failed |');
  console.log('|---|---|---|---|---|---|---|');
  const latencyRow = (label: string, kind: string, rounds: readonly Latency[], withTtfb: boolean) => {
    const m = (pick: (r: Latency) => number) => ms(median(rounds.map(pick)));
    const failed = rounds.reduce((sum, r) => sum + r.failed, 0);
    const ttfb = withTtfb ? `${m((r) => r.ttfb50)} | ${m((r) => r.ttfb99)}` : '- | -';
    console.log(
      `| ${label} | ${kind} | ${ttfb} | ${m((r) => r.total50)} | ${m((r) => r.total99)} | ${failed} |`,
    );
  };
  for (const [i, target] of targets.entries()) latencyRow(target.label, 'streamed', streamed[i] ?? [], true);
  for (const [i, target] of targets.entries())
    latencyRow(target.label, 'non-streamed', plain[i] ?? [], false);

  console.log(`\nThroughput, non-streamed, autocannon ${CONNECTIONS} connections:\n`);
  console.log('| target | req/s per round | median req/s | median p50 ms | median p99 ms | non-2xx/errors |');
  console.log('|---|---|---|---|---|---|');
  for (const [i, target] of targets.entries()) {
    const rounds = loaded[i] ?? [];
    const perRound = rounds.map((r) => Math.round(r.rps)).join(' / ');
    const failed = rounds.reduce((sum, r) => sum + r.failed, 0);
    console.log(
      `| ${target.label} | ${perRound} | ${Math.round(median(rounds.map((r) => r.rps)))} | ` +
        `${median(rounds.map((r) => r.p50))} | ${median(rounds.map((r) => r.p99))} | ${failed} |`,
    );
  }

  /** Gateway (or, with `of` 2, the reference proxy) minus direct, per round, and the median of those. */
  const added = <T>(runs: readonly (readonly T[])[], pick: (r: T) => number, of = 1) => {
    const [direct = []] = runs;
    const gateway = runs[of] ?? [];
    const perRound = gateway.map((r, round) => pick(r) - pick(direct[round] as T));
    return { perRound, median: median(perRound) };
  };
  const line = (label: string, found: { perRound: number[]; median: number }, verdict: boolean) => {
    const rounds = found.perRound.map(signed).join(' / ');
    console.log(`${label}: ${ms(found.median)} ms (per round ${rounds})`);
    if (verdict) verdicts.check(label, found.median, '<=', TARGET_MS, ' ms');
  };
  console.log('');
  line(
    'added p50 latency (TTFB, streamed)',
    added(streamed, (r) => r.ttfb50),
    false,
  );
  line(
    'added p50 latency (total, streamed)',
    added(streamed, (r) => r.total50),
    false,
  );
  line(
    'added p50 latency (total, non-streamed)',
    added(plain, (r) => r.total50),
    false,
  );
  line(
    `added p99 under load (autocannon, ${CONNECTIONS} connections)`,
    added(loaded, (r) => r.p99),
    false,
  );
  const ratio = median(loaded[1]?.map((r, round) => r.rps / (loaded[0]?.[round]?.rps ?? Infinity)) ?? []);
  console.log(`gateway/direct req/s (median of rounds): ${(ratio * 100).toFixed(1)}%`);
  console.log('');
  line(
    'added p99 latency (TTFB, streamed)',
    added(streamed, (r) => r.ttfb99),
    true,
  );
  line(
    'added p99 latency (total, streamed)',
    added(streamed, (r) => r.total99),
    true,
  );
  line(
    'added p99 latency (total, non-streamed)',
    added(plain, (r) => r.total99),
    true,
  );
  line(
    'for scale, added p99 by the minimal Node proxy (TTFB, streamed)',
    added(streamed, (r) => r.ttfb99, 2),
    false,
  );
  line(
    'for scale, added p99 by the minimal Node proxy (total, non-streamed)',
    added(plain, (r) => r.total99, 2),
    false,
  );
  const failures = [...streamed, ...plain, ...loaded].flat().reduce((sum, r) => sum + r.failed, 0);
  if (failures > 0) console.log(`warning: ${failures} requests did not succeed (non-2xx, error or bad body)`);
  verdicts.finish();
} finally {
  for (const child of children) child.kill('SIGTERM');
}
