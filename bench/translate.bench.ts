// npm run bench:translate: cache-hit throughput and latency of POST /api/v1/translate through the real
// gateway process, beside a baseline measured in the same run (bench/baseline-server.mjs: one Redis
// GET per request). autocannon, 50 connections. Targets (issue #4): gateway req/s >= 50% of the
// baseline's, gateway p99 <= 10 ms. Env: BENCH_SECONDS (default 10), DATABASE_URL, KAFKA_BROKERS.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import { HotCache, hotCacheKey } from '@tp/translation';
import autocannon from 'autocannon';
import { createClient } from 'redis';

import { REPO_ROOT, freePort, waitForHttp } from './bench-support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const prefix = `bench:${randomBytes(3).toString('hex')}:`;
const request = { text: '你好，世界', source: 'zh-CN', target: 'en' };

const children: ChildProcess[] = [];
function start(args: string[], env: NodeJS.ProcessEnv): void {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
}

async function measure(label: string, url: string, body?: string) {
  const options = {
    url,
    connections: CONNECTIONS,
    method: body ? ('POST' as const) : ('GET' as const),
    headers: { 'content-type': 'application/json' },
    ...(body ? { body } : {}),
  };
  await autocannon({ ...options, duration: 2 }); // warm-up (JIT, connection pools)
  const result = await autocannon({ ...options, duration: SECONDS });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return { label, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx };
}

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
  const [gatewayPort, baselinePort, floorPort] = [await freePort(), await freePort(), await freePort()];
  const key = hotCacheKey(request, prefix);
  start([`${REPO_ROOT}bench/baseline-server.mjs`], { PORT: String(baselinePort), KEY: key });
  start([`${REPO_ROOT}bench/express-floor-server.mjs`], { PORT: String(floorPort), KEY: key });
  start(['--disable-warning=TimeoutNegativeWarning', `${REPO_ROOT}services/gateway/dist/main.js`], {
    PORT: String(gatewayPort),
    REDIS_KEY_PREFIX: prefix,
    // The limiter stays on (its Redis call is part of the cost), with a budget the run cannot exhaust.
    RATE_LIMIT_PUBLIC: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    TRANSLATOR_URL: 'http://127.0.0.1:9',
  });
  await waitForHttp(`http://127.0.0.1:${baselinePort}/`);
  await waitForHttp(`http://127.0.0.1:${floorPort}/`);
  await waitForHttp(`http://127.0.0.1:${gatewayPort}/health`);

  const baseline = await measure('baseline: node http + 1 Redis GET', `http://127.0.0.1:${baselinePort}/`);
  const floor = await measure(
    'reference: express + express.json + 1 Redis GET',
    `http://127.0.0.1:${floorPort}/`,
    JSON.stringify(request),
  );
  const gateway = await measure(
    'gateway: POST /api/v1/translate (cache hit)',
    `http://127.0.0.1:${gatewayPort}/api/v1/translate`,
    JSON.stringify(request),
  );
  const ratio = gateway.rps / baseline.rps;
  console.log(`\nbench:translate  ${CONNECTIONS} connections, ${SECONDS} s each, node ${process.version}\n`);
  console.log('| run | req/s | p50 ms | p99 ms | non-2xx/errors |');
  console.log('|---|---|---|---|---|');
  for (const r of [baseline, floor, gateway])
    console.log(`| ${r.label} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} |`);
  console.log(
    `\ngateway/baseline req/s: ${(ratio * 100).toFixed(1)}% (target >= 50%): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
  console.log(`gateway p99: ${gateway.p99} ms (target <= 10 ms): ${gateway.p99 <= 10 ? 'met' : 'NOT met'}`);
  if (gateway.non2xx > 0 || baseline.non2xx > 0) console.log('warning: some requests did not succeed');
} finally {
  for (const child of children) child.kill('SIGTERM');
  await redis.close();
}
