// npm run bench:translate: cache-hit throughput and latency of POST /api/v1/translate through the real
// gateway process, beside, in the same run, the reference: a minimal Express app doing express.json()
// and the same Redis GET (bench/express-reference-server.mjs), and, for scale, bare Node http with the
// same GET (bench/baseline-server.mjs, no verdict). autocannon, 50 connections. Targets (issue #32):
// gateway 2xx/s >= 60% of the Express reference's, gateway p99 <= the reference's p99 + 3 ms. The
// servers are measured in turn, round after round, so a slow spell of this shared machine hits all of
// them; the verdicts use the median of the per-round ratios and the medians of the p99s. Each round also
// reads what a request costs each server in CPU time and heap bytes (bench/process-cost.ts), figures a
// busy machine does not change. Only 2xx answers count as req/s; `-- --check` exits 1 when a verdict is
// missed (bench/verdict.ts).
// Env: BENCH_SECONDS per measurement (default 6), BENCH_ROUNDS (default 3), DATABASE_URL, KAFKA_BROKERS,
// BENCH_CPU_PROF (a folder where each server writes a V8 CPU profile when it stops).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import { HotCache, hotCacheKey } from '@tp/translation';
import autocannon from 'autocannon';
import { createClient } from 'redis';

import { REPO_ROOT, freePort, median, printRoundsTable, type Run, waitForHttp } from './bench-support.js';
import {
  formatCost,
  forwardStderr,
  idleRate,
  startCost,
  type IdleRate,
  type Cost,
  type Measured,
} from './process-cost.js';
import { okPerSecond, Verdicts } from './verdict.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const prefix = `bench:${randomBytes(3).toString('hex')}:`;
const request = { text: '你好，世界', source: 'zh-CN', target: 'en' };

const children: ChildProcess[] = [];
/** Starts a server with its inspector on a free port (read by process-cost.ts; idle otherwise). */
async function start(args: string[], env: NodeJS.ProcessEnv): Promise<Measured> {
  const inspectorPort = await freePort();
  const child = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectorPort}`, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  forwardStderr(child);
  children.push(child);
  return { pid: child.pid ?? 0, inspectorPort };
}

async function measure(url: string, body: string, seconds: number): Promise<Run> {
  return (await measureWithCost(url, body, seconds)).run;
}

/** One round against one server, with what the server spent per 2xx answer meanwhile. */
async function measureWithCost(
  url: string,
  body: string,
  seconds: number,
  server?: { readonly process: Measured; readonly idle: IdleRate },
): Promise<{ run: Run; cost?: Cost }> {
  const stop = server ? await startCost(server.process, server.idle) : undefined;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    duration: seconds,
  });
  const run = {
    // Only successful answers count: a fast 4xx or 5xx is not throughput.
    rps: okPerSecond(result),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
  return { run, ...(stop ? { cost: await stop(result['2xx']) } : {}) };
}

/** The median CPU µs and bytes per request over the rounds. */
const medianCost = (costs: readonly Cost[]): Cost => ({
  cpuMicrosPerRequest: median(costs.map((c) => c.cpuMicrosPerRequest)),
  bytesPerRequest: median(costs.map((c) => c.bytesPerRequest)),
});

const redis = createClient({ url: REDIS_URL });
await redis.connect();
try {
  await new HotCache(redis as never, prefix).store(request, {
    translatedText: 'hello, world',
    source: 'zh-CN',
    engine: 'bench',
    cachedAt: new Date().toISOString(),
    truncated: false,
  });
  const [gatewayPort, baselinePort, referencePort] = [await freePort(), await freePort(), await freePort()];
  const key = hotCacheKey(request, prefix);
  // BENCH_CPU_PROF: every server writes a V8 CPU profile there when it stops (compare them side by side).
  const profile = process.env.BENCH_CPU_PROF;
  const profiled = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const baselineServer = await start([...profiled, `${REPO_ROOT}bench/baseline-server.mjs`], {
    PORT: String(baselinePort),
    KEY: key,
  });
  const referenceServer = await start([...profiled, `${REPO_ROOT}bench/express-reference-server.mjs`], {
    PORT: String(referencePort),
    KEY: key,
  });
  const gatewayServer = await start(
    ['--disable-warning=TimeoutNegativeWarning', ...profiled, `${REPO_ROOT}services/gateway/dist/main.js`],
    {
      PORT: String(gatewayPort),
      REDIS_KEY_PREFIX: prefix,
      // The limiter stays on (its Redis call is part of the cost), with a budget the run cannot exhaust.
      RATE_LIMIT_PUBLIC: process.env.BENCH_RATE_LIMIT ?? '1000000000',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      TRANSLATOR_URL: 'http://127.0.0.1:9',
    },
  );
  await waitForHttp(`http://127.0.0.1:${baselinePort}/`);
  await waitForHttp(`http://127.0.0.1:${referencePort}/v/0`);
  await waitForHttp(`http://127.0.0.1:${gatewayPort}/health`);

  const body = JSON.stringify(request);
  // Every target gets the same request, so the baseline also receives (and skips) the JSON body.
  const targets = [
    {
      label: 'baseline: node http + 1 Redis GET',
      url: `http://127.0.0.1:${baselinePort}/`,
      server: baselineServer,
    },
    {
      label: 'reference: express + express.json + 1 Redis GET',
      url: `http://127.0.0.1:${referencePort}/`,
      server: referenceServer,
    },
    {
      label: 'gateway: POST /api/v1/translate (cache hit)',
      url: `http://127.0.0.1:${gatewayPort}/api/v1/translate`,
      server: gatewayServer,
    },
  ];
  for (const target of targets) await measure(target.url, body, 2); // warm-up (JIT, connection pools)
  // Background work (timers, health checks, Kafka heartbeats) is not charged to the requests.
  const idle = await Promise.all(targets.map((target) => idleRate(target.server, 3)));
  const runs = targets.map(() => [] as Run[]);
  const costs = targets.map(() => [] as Cost[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, target] of targets.entries()) {
      const server = {
        process: target.server,
        idle: idle[i] ?? { cpuMicrosPerSecond: 0, bytesPerSecond: 0 },
      };
      const { run, cost } = await measureWithCost(target.url, body, SECONDS, server);
      runs[i]?.push(run);
      if (cost) costs[i]?.push(cost);
    }
  }

  console.log(
    `\nbench:translate  ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, node ${process.version}\n`,
  );
  const summary = printRoundsTable(
    targets.map((target) => target.label),
    runs,
  );
  const [, reference, gateway] = summary as [unknown, (typeof summary)[0], (typeof summary)[0]];
  // The ratio of each round (reference and gateway measured back to back), then their median.
  const ratios = (runs[2] ?? []).map((r, i) => r.rps / (runs[1]?.[i]?.rps ?? Infinity));
  const ratio = median(ratios);
  console.log(
    `\ngateway/express reference 2xx/s per round: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(' / ')}`,
  );
  console.log(
    '\nper request, median of rounds (CPU time of the server process and bytes allocated on its JS heap, less what it spends idle):',
  );
  for (const [i, target] of targets.entries()) {
    const rate = idle[i];
    const idleText = rate ? ` (idle: ${(rate.cpuMicrosPerSecond / 1000).toFixed(1)} ms CPU/s)` : '';
    console.log(`  ${target.label}: ${formatCost(medianCost(costs[i] ?? []))}${idleText}`);
  }
  const gatewayCost = medianCost(costs[2] ?? []);
  const referenceCost = medianCost(costs[1] ?? []);
  console.log(
    `gateway CPU µs per request: ${gatewayCost.cpuMicrosPerRequest.toFixed(1)} (express reference's: ${referenceCost.cpuMicrosPerRequest.toFixed(1)}); ` +
      `gateway bytes per request: ${gatewayCost.bytesPerRequest.toFixed(0)} (express reference's: ${referenceCost.bytesPerRequest.toFixed(0)})\n`,
  );
  const verdicts = new Verdicts();
  verdicts.check('gateway/express reference 2xx/s (median of rounds)', ratio * 100, '>=', 60, '%');
  verdicts.check(
    'gateway p99 <= express reference p99 + 3 ms (medians of rounds)',
    gateway.p99,
    '<=',
    reference.p99 + 3,
    ' ms',
  );
  verdicts.finish();
  if (summary.some((row) => row.failed > 0)) console.log('warning: some requests did not succeed');
} finally {
  for (const child of children) child.kill('SIGTERM');
  await redis.close();
}
