import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentTranslation, SourceContent, TranslationBackfill, type Orm } from '@tp/db';

import { field, startRecordingProxy, type HttpDouble } from '../doubles/http-double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

// Issue 36: a catalogue is reported, then a language is added to the configuration; the backfill
// translates every stored field into it through the real Apertium, its progress is visible in the
// status, and a worker killed with SIGKILL mid-backfill loses and repeats nothing. Then a second
// language, and the translator killed with SIGKILL mid-backfill: every row present, and no field whose
// row was stored when it was killed sent to Apertium again. 200 entities of 10 fields: 2,000 field
// translations a language (about 25 s at the backfill's 80 fields a second). The services reach APy
// through a recording pass-through, which counts what the engine was asked.
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
let apertium: HttpDouble;

beforeAll(async () => {
  apertium = await startRecordingProxy(process.env.APERTIUM_URL as string);
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
    APERTIUM_URL: apertium.url,
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
  await apertium?.close();
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

async function progress(language = 'es'): Promise<Progress | undefined> {
  const { body } = await call('GET', '/api/admin/translate/status', adminKey);
  const { latest } = body.data.backfills as { latest: (Progress & { language: string })[] };
  return latest.find((b) => b.language === language);
}

/** The texts of one APy /translate request (the translator's batches: each between two `<hr>`). */
const textsOf = (q: unknown) => String(q).split('<hr>').slice(1, -1);

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

  it('loses nothing and asks Apertium for no stored field again when the translator is killed mid-backfill', async () => {
    const total = await orm.em.fork().count(SourceContent, { entityType: 'product' });
    expect(total).toBe(ENTITIES * FIELDS);
    const sources = new Map(
      (await orm.em.fork().find(SourceContent, { entityType: 'product' })).map((s) => [
        `${s.entityId}/${s.field}`,
        s.text,
      ]),
    );
    const catalan = () => orm.em.fork().find(ContentTranslation, { entityType: 'product', targetLang: 'ca' });
    apertium.reset();
    const askedCatalan = () =>
      apertium.requests.filter((r) => r.path === '/translate' && field(r.body, 'langpair') === 'eng|cat');

    await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['en', 'es', 'ca'] });
    await waitFor(
      'the ca backfill under way',
      async () => {
        const now = await progress('ca');
        return !!now && now.done > 0 && now.remaining > 0;
      },
      60_000,
      100,
    );
    running.get('translator')!.child.kill('SIGKILL');
    await running.get('translator')!.exited;
    // What the engine was asked before the kill, and the rows stored by then (read after the kill:
    // the worker still writes the completions the translator sent before it died).
    const askedBeforeKill = askedCatalan().length;
    const storedAtKill = new Map((await catalan()).map((r) => [`${r.entityId}/${r.field}`, r]));
    expect(storedAtKill.size).toBeGreaterThan(0);
    expect(storedAtKill.size).toBeLessThan(total);
    running.set('translator', runService('translator', env, ports.translator as number));
    await waitForHealth('translator', running.get('translator')!);

    await waitFor(
      'the ca backfill done',
      async () => (await progress('ca'))?.status === 'done',
      240_000,
      500,
    );
    const [job] = await orm.em.fork().find(TranslationBackfill, { language: 'ca' });
    expect(job).toMatchObject({ total, requested: total, done: total, failed: 0, remaining: 0 });
    // Every row present, and those stored before the kill untouched (same text, never written again).
    const rows = await catalan();
    expect(rows).toHaveLength(total);
    for (const [key, before] of storedAtKill) {
      const after = rows.find((r) => `${r.entityId}/${r.field}` === key);
      expect({ key, text: after?.translatedText, at: after?.updatedAt }).toEqual({
        key,
        text: before.translatedText,
        at: before.updatedAt,
      });
    }

    // What Apertium was asked: each text of each eng|cat request, before and after the kill.
    const asked = askedCatalan().map((r, i) => ({
      texts: textsOf(field(r.body, 'q')),
      afterKill: i >= askedBeforeKill,
    }));
    const keyOf = new Map([...sources].map(([key, text]) => [text, key]));
    const times = new Map<string, number>();
    for (const { texts } of asked) for (const text of texts) times.set(text, (times.get(text) ?? 0) + 1);
    // Each field's text went to Apertium (as the field's own text, nothing else was sent).
    expect([...times.keys()].filter((text) => !keyOf.has(text))).toEqual([]);
    expect(times.size).toBe(total);
    // No field stored at the kill was asked for after it.
    const askedAgain = asked
      .filter((r) => r.afterKill)
      .flatMap((r) => r.texts)
      .filter((text) => storedAtKill.has(keyOf.get(text) as string));
    expect(askedAgain).toEqual([]);
    // A field asked twice was asked before the kill and had no row at the kill: work in flight, which
    // the translator had not stored when it died (the only work a restart may ask for again).
    const inFlightAtKill = new Set(
      asked
        .filter((r) => !r.afterKill)
        .flatMap((r) => r.texts)
        .filter((text) => !storedAtKill.has(keyOf.get(text) as string)),
    );
    const twice = [...times].filter(([, n]) => n > 1).map(([text]) => text);
    expect(twice.filter((text) => !inFlightAtKill.has(text))).toEqual([]);
    expect(Math.max(...times.values())).toBeLessThanOrEqual(2);
  }, 420_000);
});
