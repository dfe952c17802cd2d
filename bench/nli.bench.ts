// npm run bench:nli: latency of POST /api/v1/moderate/nli through the real gateway and nli processes
// on a cache hit (the spec: under 10 ms), beside the first call of each text (a model run) and a
// baseline measured in the same run (bench/baseline-server.mjs: one Redis GET per request). Uses the
// project's tiny NLI model (explicitly allowed): a cache hit does not depend on the model.
// The latency target is read with one connection (a request at a time: what one caller waits);
// 10 connections show throughput and queueing under load. autocannon. Only 2xx answers count as
// req/s; `-- --check` exits 1 when a verdict is missed (bench/verdict.ts). Env: BENCH_SECONDS (default 10).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildTinyNliModel } from '@tp/models';
import autocannon from 'autocannon';
import { createClient } from 'redis';

import { REPO_ROOT, freePort, waitForHttp } from './bench-support.js';
import { okPerSecond, Verdicts } from './verdict.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const prefix = `bench:${randomBytes(3).toString('hex')}:`;
const children: ChildProcess[] = [];
const start = (script: string, env: NodeJS.ProcessEnv) => {
  const args = ['--disable-warning=TimeoutNegativeWarning', `${REPO_ROOT}${script}`];
  children.push(
    spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
};

const modelDir = await mkdtemp(join(tmpdir(), 'tp-bench-nli-'));
const redis = createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0' });
await redis.connect();
try {
  await buildTinyNliModel(modelDir);
  await redis.set(`${prefix}baseline`, JSON.stringify({ is_safe: true }));
  const [gatewayPort, nliPort, baselinePort] = [await freePort(), await freePort(), await freePort()];
  start('services/nli/dist/main.js', {
    PORT: String(nliPort),
    NLI_MODEL_DIR: modelDir,
    NLI_ALLOW_TEST_MODEL: 'true',
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  });
  start('services/gateway/dist/main.js', {
    PORT: String(gatewayPort),
    NLI_URL: `http://127.0.0.1:${nliPort}`,
    REDIS_KEY_PREFIX: prefix,
    RATE_LIMIT_PER_KEY: '1000000000',
    LOG_LEVEL: 'info',
  });
  start('bench/baseline-server.mjs', { PORT: String(baselinePort), KEY: `${prefix}baseline` });
  await waitForHttp(`http://127.0.0.1:${gatewayPort}/health`);
  await waitForHttp(`http://127.0.0.1:${baselinePort}/`);
  const key = execFileSync(
    process.execPath,
    [`${REPO_ROOT}services/gateway/dist/keys/keys.cli.js`, 'create', '--role', 'client'],
    {
      encoding: 'utf8',
    },
  ).trim();
  const url = `http://127.0.0.1:${gatewayPort}/api/v1/moderate/nli`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  // First calls: every text is new, so each one runs the model.
  const firstCalls: number[] = [];
  for (let i = 0; i < 50; i += 1) {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: `they attack the city ${i}` }),
    });
    await res.json();
    firstCalls.push(performance.now() - started);
  }
  firstCalls.sort((a, b) => a - b);

  const body = JSON.stringify({ text: 'they attack the city 0' });
  const load = async (target: string, withBody: boolean, connections: number) => {
    const options = {
      url: target,
      connections,
      method: 'POST' as const,
      headers,
      ...(withBody ? { body } : {}),
    };
    await autocannon({ ...options, duration: 2 });
    return autocannon({ ...options, duration: SECONDS });
  };
  const baseline = await load(`http://127.0.0.1:${baselinePort}/`, false, 1);
  const direct = await load(`http://127.0.0.1:${nliPort}/detect`, true, 1);
  const hit = await load(url, true, 1);
  const loaded = await load(url, true, 10);

  console.log(`\nbench:nli  ${SECONDS} s per run, node ${process.version}\n`);
  console.log('| run | 2xx/s | p50 ms | p99 ms | non-2xx/errors |');
  console.log('|---|---|---|---|---|');
  const row = (label: string, r: autocannon.Result) =>
    console.log(
      `| ${label} | ${Math.round(okPerSecond(r))} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx + r.errors + r.timeouts} |`,
    );
  row('baseline: node http + 1 Redis GET, 1 connection', baseline);
  row('nli service alone, cache hit: POST /detect, 1 connection', direct);
  row('gateway -> nli, cache hit: POST /api/v1/moderate/nli, 1 connection', hit);
  row('gateway -> nli, cache hit, 10 connections (load)', loaded);
  const pct = (p: number) =>
    firstCalls[Math.min(firstCalls.length - 1, Math.floor(p * firstCalls.length))]!.toFixed(1);
  console.log(
    `| first call of a text (tiny model run), 50 sequential calls | - | ${pct(0.5)} | ${pct(0.99)} | - |`,
  );
  console.log('');
  const verdicts = new Verdicts();
  // A p99 of failed answers is not the latency of a cache hit: the run must have answered every request.
  verdicts.check('cache hit run: requests not answered 2xx', hit.non2xx + hit.errors + hit.timeouts, '<=', 0);
  verdicts.check('cache hit p99 (spec: under 10 ms)', hit.latency.p99, '<', 10, ' ms');
  verdicts.finish();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await redis.close();
  await rm(modelDir, { recursive: true, force: true });
}
