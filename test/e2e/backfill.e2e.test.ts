import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentTranslation, SourceContent, TranslationBackfill, type Orm } from '@tp/db';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

// Issue 36: a catalogue is reported, then a language is added to the configuration; the backfill
// translates every stored field into it through the real Apertium, its progress is visible in the
// status, and a worker killed with SIGKILL mid-backfill loses and repeats nothing. 200 entities of 10
// fields: 2,000 field translations (about 15 s at the backfill's 200 fields a second).
const ENTITIES = 200;
const FIELDS = 10;
const run = promisify(execFile);
let db: TestDatabase;
let orm: Orm;
const prefix = uniquePrefix('e2e-bf');
const running = new Map<string, ServiceProcess>();
let env: NodeJS.ProcessEnv;
let ports: Record<string, number>;
let gateway: string;
let adminKey: string;
let clientKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  await createTopics(testKafka('e2e-bf'), prefix);
  ports = { translator: await freePort(), worker: await freePort(), gateway: await freePort() };
  env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_KEY_PREFIX: `${prefix}:`,
    APERTIUM_URL: process.env.APERTIUM_URL,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
    RATE_LIMIT_PER_KEY: '0',
  };
  for (const [name, port] of Object.entries(ports)) running.set(name, runService(name, env, port));
  for (const [name, proc] of running) await waitForHealth(name, proc);
  gateway = running.get('gateway')!.url;
  adminKey = await createKeyWithCli(db.url, 'admin');
  clientKey = await createKeyWithCli(db.url, 'client');
}, 150_000);

afterAll(async () => {
  for (const proc of running.values()) proc.child.kill('SIGKILL');
  await orm?.close(true);
  await db?.drop();
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

interface Progress {
  status: string;
  total: number;
  requested: number;
  done: number;
  failed: number;
  remaining: number;
}

async function progress(): Promise<Progress | undefined> {
  const { body } = await call('GET', '/api/admin/translate/status', adminKey);
  const { latest } = body.data.backfills as { latest: (Progress & { language: string })[] };
  return latest.find((b) => b.language === 'es');
}

const fields = (e: number) =>
  Object.fromEntries(
    Array.from({ length: FIELDS }, (_, f) => [
      `f${f}`,
      `The shop number ${e} opens on day ${f + 1} of the week.`,
    ]),
  );

describe('adding a language backfills the stored catalogue (Apertium)', () => {
  it('translates every stored field into the new language, shows its progress, and survives a killed worker', async () => {
    expect(
      (await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['en'] })).status,
    ).toBe(200);
    for (let e = 0; e < ENTITIES; e++) {
      const report = await call('POST', `/api/v1/content/shop/product/p-${e}`, clientKey, {
        source_lang: 'en',
        source_version: 1,
        fields: fields(e),
      });
      expect(report.status).toBe(202);
    }
    const stored = () => orm.em.fork().count(SourceContent, { entityType: 'product' });
    await waitFor('the catalogue stored', async () => (await stored()) === ENTITIES * FIELDS, 60_000, 200);

    await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['en', 'es'] });
    const seen: Progress[] = [];
    await waitFor(
      'the backfill under way',
      async () => {
        const now = await progress();
        if (now) seen.push(now);
        return !!now && now.done > 0 && now.remaining > 0;
      },
      60_000,
      100,
    );
    expect(seen.at(-1)).toMatchObject({ status: 'running', total: ENTITIES * FIELDS });

    running.get('worker')!.child.kill('SIGKILL');
    await running.get('worker')!.exited;
    running.set('worker', runService('worker', env, ports.worker as number));
    await waitForHealth('worker', running.get('worker')!);

    await waitFor('the backfill done', async () => (await progress())?.status === 'done', 180_000, 500);
    const rows = await orm.em.fork().count(ContentTranslation, { entityType: 'product', targetLang: 'es' });
    expect(rows).toBe(ENTITIES * FIELDS);
    const sample = await orm.em.fork().findOneOrFail(ContentTranslation, {
      entityType: 'product',
      entityId: 'p-7',
      field: 'f2',
      targetLang: 'es',
    });
    expect(sample.translatedText).toMatch(/tienda/i);
    // Requested exactly once each, killed worker or not.
    const [job] = await orm.em.fork().find(TranslationBackfill, { language: 'es' });
    expect(job).toMatchObject({
      total: 2000,
      requested: 2000,
      done: 2000,
      failed: 0,
      remaining: 0,
      origin: 'config',
    });

    const { stdout } = await run(
      process.execPath,
      ['services/worker/dist/backfill-translations/backfill.cli.js', 'list'],
      {
        env: { ...process.env, DATABASE_URL: db.url },
      },
    );
    expect(stdout).toContain(`${job?.id} es done: 2000 done, 0 failed, 0 remaining of 2000`);
  }, 300_000);
});
