// A new user's first hour (issue 38), on the stack as `npm start` runs it: the real scripts/start.sh
// with its own ports, database, topic and key prefixes, the shared Kafka and APy (so it starts
// neither), no NLI model and a models folder holding only a test model a former version left behind.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildTinyModel } from '@tp/models';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { uniquePrefix } from '../harness/kafka.js';
import { freePort, REPO_ROOT } from '../harness/processes.js';
import { comparable, runStep, walkthroughSteps } from '../harness/readme-walkthrough.js';
import { waitFor } from '../harness/wait.js';

const SERVICES = ['gateway', 'translator', 'nli', 'worker'] as const;
const READY_LINE = /^\[start\] ready in .*$/m;

/** One look at every service's /ready: when it began, and whether all four answered 200. */
interface Look {
  readonly at: number;
  readonly allReady: boolean;
}

let db: TestDatabase;
let modelsDir: string;
let start: ChildProcess;
let output = '';
let lineAt: number | undefined;
let gateway: string;
const urls: Record<string, string> = {};
const looks: Look[] = [];
let looking = true;
let lookLoop: Promise<void>;

async function lookOnce(): Promise<Look> {
  const at = performance.now();
  const statuses = await Promise.all(
    SERVICES.map(async (s) => (await fetch(`${urls[s]}/ready`).catch(() => undefined))?.status),
  );
  return { at, allReady: statuses.every((status) => status === 200) };
}

beforeAll(async () => {
  db = await createTestDatabase();
  modelsDir = await mkdtemp(join(tmpdir(), 'tp-first-hour-models-'));
  // What an earlier `npm start` left in var/models: the tiny zh -> en test model.
  await buildTinyModel(join(modelsDir, 'opus-mt-zh-en-leftover'));
  const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, await freePort()])));
  for (const s of SERVICES) urls[s] = `http://127.0.0.1:${ports[s]}`;
  gateway = urls.gateway!;
  const prefix = uniquePrefix('first-hour');
  start = spawn('bash', ['scripts/start.sh'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      KAFKA_TOPIC_PREFIX: prefix,
      REDIS_KEY_PREFIX: `${prefix}:`,
      GATEWAY_PORT: String(ports.gateway),
      TRANSLATOR_PORT: String(ports.translator),
      NLI_PORT: String(ports.nli),
      WORKER_PORT: String(ports.worker),
      MODELS_DIR: modelsDir,
      NLI_MODEL_DIR: join(modelsDir, 'nli', 'not-installed'),
      LOG_LEVEL: 'info',
    },
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (lineAt === undefined && READY_LINE.test(output)) lineAt = performance.now();
  };
  start.stdout?.on('data', collect);
  start.stderr?.on('data', collect);
  lookLoop = (async () => {
    while (looking) {
      looks.push(await lookOnce());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await waitFor('the [start] ready line', () => lineAt !== undefined, 240_000, 100).catch((err: unknown) => {
    throw new Error(`no ready line: ${output.slice(-3000)}`, { cause: err });
  });
}, 300_000);

afterAll(async () => {
  looking = false;
  await lookLoop;
  if (start?.pid !== undefined && start.exitCode === null) {
    const exited = new Promise((resolve) => start.once('exit', resolve));
    process.kill(-start.pid, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, 30_000, 'late')));
    if ((await Promise.race([exited, late])) === 'late') process.kill(-start.pid, 'SIGKILL');
    clearTimeout(timer);
  }
  await db?.drop();
  await rm(modelsDir, { recursive: true, force: true });
}, 60_000);

/** The gateway's envelope; `data` is typed by the caller. */
interface Answer<T> {
  readonly data: T;
  readonly error?: string;
  readonly message: string;
}

async function call<T = Record<string, unknown>>(method: string, path: string, key?: string, body?: unknown) {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Answer<T> };
}

describe('npm start, as a new user runs it', () => {
  it('prints the ready line only once every /ready passes, with the URLs and what is degraded and why', async () => {
    const after = [...looks.filter((look) => look.at >= lineAt!), await lookOnce()];
    expect(after.every((look) => look.allReady)).toBe(true);
    const line = READY_LINE.exec(output)![0];
    expect(line).toContain(`gateway ${gateway}, console ${gateway}/console`);
    expect(line).toContain('degraded: nli: model degraded: no model at');
    expect(line).toContain('`npm run models:pull -- nli` to add one');
    // Nothing of the script's before it claims the stack is up: the starting line says a line follows.
    const before = output.slice(0, output.search(READY_LINE)).split('\n');
    const scriptLines = before.filter((l) => l.startsWith('['));
    expect(scriptLines).toContainEqual(
      expect.stringContaining('a [start] ready line follows once every /ready passes'),
    );
    const claims = scriptLines.filter((l) => !l.includes('ready line follows') && /\bready\b/.test(l));
    expect(claims).toEqual([]);
  });

  it('logs the expected degradations at warn: no error line at start', () => {
    const lines = output.split('\n').filter((l) => l.startsWith('{'));
    // The lines themselves, so a failure shows what was logged at error.
    expect(lines.filter((l) => (JSON.parse(l) as { level: string }).level === 'error')).toEqual([]);
    expect(lines.some((l) => l.includes('"level":"warn"') && l.includes('NLI model not loaded'))).toBe(true);
  });

  it("reports nli on the gateway's /ready as nli reports itself: degraded, the gateway ready", async () => {
    const own = await (await fetch(`${urls.nli}/ready`)).json();
    const edge = await (await fetch(`${gateway}/ready`)).json();
    expect(own).toMatchObject({ status: 'ready', dependencies: { model: { status: 'degraded' } } });
    expect(edge).toMatchObject({ status: 'ready', dependencies: { nli: { status: 'degraded' } } });
  });

  it('builds no test model, and lists no pair that only a test model would serve', async () => {
    expect(await readdir(modelsDir)).toEqual(['opus-mt-zh-en-leftover']);
    type Pair = { source: string; target: string; engines: string[] };
    const { status, body } = await call<{ pairs: Pair[] }>('GET', '/api/v1/translate/pairs');
    expect(status).toBe(200);
    const { pairs } = body.data;
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.filter((p) => p.engines.includes('offline'))).toEqual([]);
    // From zh-CN, only OpenCC's conversion into zh-TW.
    expect(pairs.filter((p) => p.source === 'zh-CN')).toEqual([
      { source: 'zh-CN', target: 'zh-TW', engines: ['opencc'] },
    ]);
  });

  it('converts zh-CN into zh-TW with Taiwan vocabulary, and back', async () => {
    const there = await call('POST', '/api/v1/translate', undefined, {
      text: '软件和鼠标',
      source: 'zh-CN',
      target: 'zh-TW',
    });
    expect(there.status).toBe(200);
    expect(there.body.data).toMatchObject({ translatedText: '軟體和滑鼠', engine: 'opencc' });
    const back = await call('POST', '/api/v1/translate', undefined, {
      text: '軟體和滑鼠',
      source: 'zh-TW',
      target: 'zh-CN',
    });
    expect(back.body.data).toMatchObject({ translatedText: '软件和鼠标', engine: 'opencc' });
  });

  it('answers zh-CN -> en with a 4xx naming what would make it work', async () => {
    const { status, body } = await call('POST', '/api/v1/translate', undefined, {
      text: '你好，世界',
      source: 'zh-CN',
      target: 'en',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'UNSUPPORTED_LANGUAGE_PAIR' });
    expect(body.message).toMatch(/^zh-CN -> en: no installed engine serves this pair/);
    expect(body.message).toContain('PRIMARY_ENGINE=deepl|google');
    expect(body.message).toContain('LIBRETRANSLATE_URL');
    expect(body.message).toContain('`npm run models:pull -- zh-en`');
    expect(body.message).toContain('Retrying will not help.');
  });

  it("lists in the README's table exactly the pairs this set-up serves (npm run readme:pairs -- --check)", async () => {
    const check = promisify(execFile)('npm', ['run', '--silent', 'readme:pairs', '--', '--check'], {
      cwd: REPO_ROOT,
      env: { ...process.env, GATEWAY_URL: gateway },
    });
    await expect(check).resolves.toBeDefined();
  });

  it("runs the README walkthrough's commands, each printing what the README shows", async () => {
    const steps = walkthroughSteps(await readFile(join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const stateFile = join(modelsDir, 'walkthrough.env');
    await writeFile(stateFile, '');
    const options = {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: db.url },
      stateFile,
      rewrite: (commands: string) => commands.replaceAll('localhost:3000', gateway.replace('http://', '')),
    };
    for (const step of steps) {
      // The pipeline works in the background: a step whose output differs is run again, up to 30 s
      // (the README says to run the tracking again until `done`).
      let output = await runStep(step, options);
      for (
        let tries = 0;
        step.expected !== undefined && comparable(output) !== comparable(step.expected);
        tries++
      ) {
        if (tries >= 60) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
        output = await runStep(step, options);
      }
      expect({ commands: step.commands, output: comparable(output) }).toEqual({
        commands: step.commands,
        output: comparable(step.expected ?? ''),
      });
    }
  }, 120_000);

  it('dead-letters content into a language no engine serves at its first attempt, and translates the rest', async () => {
    const { stdout } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'keys', '--', 'create', '--role', 'admin'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: db.url },
      },
    );
    const key = stdout.trim();
    const config = await call('PUT', '/api/admin/translate/config', key, { target_languages: ['es', 'ja'] });
    expect(config.status).toBe(200);
    const report = await call<{ tracking_id: string }>('POST', '/api/v1/content/shop/product/p-1', key, {
      source_lang: 'en',
      source_version: 1,
      fields: { title: 'Good morning' },
    });
    expect(report.status).toBe(202);
    const tracking = `/api/v1/content/tracking/${report.body.data.tracking_id}`;
    const began = Date.now();
    await waitFor(
      'the report done',
      async () => (await call<{ status: string }>('GET', tracking, key)).body.data.status === 'done',
      60_000,
      200,
    );
    // At once: far inside the first retry's backoff schedule, which would span an hour.
    expect(Date.now() - began).toBeLessThan(60_000);
    expect((await call('GET', tracking, key)).body.data).toMatchObject({
      requests: 2,
      translated: 1,
      dead_lettered: { UNSUPPORTED_LANGUAGE_PAIR: 1 },
    });
    type Letter = { error_code: string; error_message: string; attempts: number; key: string | null };
    const letters = await call<{ entries: Letter[] }>(
      'GET',
      '/api/admin/translate/dead-letters?code=UNSUPPORTED_LANGUAGE_PAIR',
      key,
    );
    // The README walkthrough before this test dead-lettered its own Korean requests.
    const mine = letters.body.data.entries.filter((entry) => entry.key?.startsWith('product:p-1:'));
    expect(mine).toEqual([expect.objectContaining({ error_code: 'UNSUPPORTED_LANGUAGE_PAIR', attempts: 1 })]);
    expect(mine[0]?.error_message).toContain('en -> ja: no installed engine serves this pair');
    const read = await fetch(`${gateway}/api/v1/content/shop/product/p-1`, {
      headers: { authorization: `Bearer ${key}`, 'x-language': 'es' },
    });
    expect(((await read.json()) as Answer<{ fields: object }>).data.fields).toEqual({ title: 'Buenos días' });
  }, 120_000);
});
