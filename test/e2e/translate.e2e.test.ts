import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { KafkaConsumer } from '@tp/kafka';
import { buildTinyModel } from '@tp/models';
import { EventCodec } from '@tp/schemas';
import { hotCacheKey } from '@tp/translation';
import { createClient } from 'redis';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli } from '../harness/pipeline-services.js';
import { silentLogger } from '../harness/logger.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

// A fresh stack as `npm start` runs it: the real Apertium (APy, started by jest's global setup with the
// default Debian pairs) and the tiny offline test model, no online engine. Real processes, real
// Kafka/Postgres/Redis.
let db: TestDatabase;
let modelsDir: string;
const prefix = uniquePrefix('e2e-tr');
const running = new Map<string, ServiceProcess>();
let gateway: string;

beforeAll(async () => {
  db = await createTestDatabase();
  modelsDir = await mkdtemp(join(tmpdir(), 'tp-models-'));
  await buildTinyModel(join(modelsDir, 'opus-mt-zh-en-tiny'));
  await createTopics(testKafka('e2e-tr'), prefix);
  const ports = { translator: await freePort(), worker: await freePort(), gateway: await freePort() };
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_KEY_PREFIX: `${prefix}:`,
    MODELS_DIR: modelsDir,
    ALLOW_TEST_MODELS: 'true',
    APERTIUM_URL: process.env.APERTIUM_URL,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
  };
  for (const [name, port] of Object.entries(ports)) running.set(name, runService(name, env, port));
  for (const [name, proc] of running) {
    await waitForHealth(name, proc);
  }
  gateway = running.get('gateway')!.url;
}, 150_000);

afterAll(async () => {
  for (const proc of running.values()) proc.child.kill('SIGKILL');
  await db?.drop();
  await rm(modelsDir, { recursive: true, force: true });
});

async function translate(body: unknown) {
  const res = await fetch(`${gateway}/api/v1/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { code: number; data?: Record<string, unknown>; error?: string },
  };
}

describe('real translation on a fresh stack (Apertium)', () => {
  it('translates the first example of the README, en -> es, through the public endpoint', async () => {
    const { status, body } = await translate({
      text: 'Good morning, my friend.',
      source: 'en',
      target: 'es',
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      translatedText: 'Buenos días, mi amigo.',
      source: 'en',
      target: 'es',
      engine: 'apertium',
      cached: false,
      route: [{ source: 'en', target: 'es', engine: 'apertium' }],
    });
  });

  it('lists the pairs translatable now at GET /api/v1/translate/pairs, pivots included', async () => {
    const res = await fetch(`${gateway}/api/v1/translate/pairs?source=en`);
    const body = (await res.json()) as {
      data: { pairs: { target: string; engines: string[]; via?: string }[] };
    };
    expect(res.status).toBe(200);
    const byTarget = new Map(body.data.pairs.map((pair) => [pair.target, pair]));
    expect(byTarget.get('es')).toMatchObject({ engines: ['apertium'] });
    expect(byTarget.get('pt')).toMatchObject({ engines: [], via: 'es' });
    expect(byTarget.has('de')).toBe(false);
  });

  it('translates an array of texts in order, a text no engine serves failing alone, and the translator lives on', async () => {
    const { status, body } = await translate({
      text: ['Good morning, my friend.', 'おはようございます。今日はいい天気ですね。', 'The house is red'],
      source: 'auto',
      target: 'es',
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      count: 3,
      failed: 1,
      translations: [
        { translatedText: 'Buenos días, mi amigo.', source: 'en', engine: 'apertium' },
        { error: { code: 40006, error: 'UNSUPPORTED_LANGUAGE_PAIR' } },
        { translatedText: 'La casa es roja', engine: 'apertium' },
      ],
    });
    // The failed text's rejection was handled: the translator process is still there to answer.
    const next = await translate({ text: 'The dog is big.', source: 'en', target: 'es' });
    expect(next).toMatchObject({ status: 200, body: { data: { translatedText: 'El perro es grande.' } } });
  });

  it('lives on when a text Apertium could not translate fails while the others are being stored', async () => {
    // One APy call for both texts: Apertium knows no word of the second and echoes it (a failure),
    // and its rejection comes while the first text's translation is still being written to Redis.
    // Unhandled until then, it ended the translator process (Node's default for unhandled rejections).
    const texts = [`The shop number ${Date.now()} opens on Monday.`, `Xyzzy plugh frobnicate ${Date.now()}`];
    const { status, body } = await translate({ text: texts, source: 'en', target: 'es' });

    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      failed: 1,
      translations: [
        {
          translatedText: expect.stringMatching(/^El número de tienda \d+ abre el lunes\.$/),
          engine: 'apertium',
        },
        { error: { error: 'TRANSLATION_UNAVAILABLE' } },
      ],
    });
    const next = await translate({ text: 'The bread is warm.', source: 'en', target: 'es' });
    expect(next).toMatchObject({ status: 200, body: { data: { engine: 'apertium' } } });
    expect(running.get('translator')?.child.exitCode).toBeNull();
  });

  it('keeps translating after callers go away mid-translation', async () => {
    for (let round = 0; round < 5; round += 1) {
      const controller = new AbortController();
      const texts = Array.from(
        { length: 20 },
        (_, i) => `The market number ${round * 100 + i} opens on Monday.`,
      );
      const gone = fetch(`${gateway}/api/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: texts, source: 'en', target: 'es' }),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      setTimeout(() => controller.abort(), 20);
      await gone;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await translate({ text: 'The garden is quiet.', source: 'en', target: 'es' });
    expect(next.status).toBe(200);
    expect(running.get('translator')?.child.exitCode).toBeNull();
  });

  it('answers a pair no engine serves with 400 UNSUPPORTED_LANGUAGE_PAIR', async () => {
    const { status, body } = await translate({ text: 'Good morning', source: 'en', target: 'de' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40006, error: 'UNSUPPORTED_LANGUAGE_PAIR' });
  });

  it('translates a content report from en into es, ca and pt, read back with x-language', async () => {
    const key = await createKeyWithCli(db.url, 'admin');
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${gateway}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect(
      (
        await call('PUT', '/api/admin/translate/config', {
          target_languages: ['es', 'ca', 'pt'],
          enabled: true,
        })
      ).status,
    ).toBe(200);
    const report = await call('POST', '/api/v1/content/catalog/vendor/v-en', {
      source_lang: 'en',
      source_version: 1,
      fields: { slogan: 'The vendor sells fresh organic vegetables and fruit.' },
    });
    expect(report.status).toBe(202);

    const expected = {
      es: 'El vendedor vende vegetales orgánicos frescos y fruta.',
      ca: 'El venedor ven vegetals orgànics frescos i fruita.',
      pt: 'O vendedor vende vegetais orgânicos frescos e fruta.',
    };
    for (const [language, slogan] of Object.entries(expected)) {
      await waitFor(`the ${language} translation`, async () => {
        const res = await call('GET', '/api/v1/vendors/v-en', undefined, { 'x-language': language });
        const body = (await res.json()) as {
          data?: { fields?: { slogan?: string }; untranslated?: string[] };
        };
        return body.data?.fields?.slogan === slogan && body.data.untranslated?.length === 0;
      });
    }
  });
});

describe('translation on a fresh stack with only the tiny offline model', () => {
  it('reads the hot cache in the gateway and in the run of the translator for a miss, and stores the result once', async () => {
    const text = `The museum number ${Date.now()} opens on Monday.`;
    const key = hotCacheKey({ source: 'en', target: 'es', text }, `${prefix}:`);
    // Every command Redis runs for this text's key, as MONITOR shows them.
    const monitor = createClient({ url: process.env.REDIS_URL });
    await monitor.connect();
    const commands: string[] = [];
    await monitor.monitor((line) => {
      if (line.includes(key)) commands.push(line.split('"')[1]?.toLowerCase() ?? line);
    });
    try {
      const { status, body } = await translate({ text, source: 'en', target: 'es' });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({ cached: false, engine: 'apertium' });
      await waitFor('the result stored', () => commands.includes('set'));
      // The gateway's read, and the translator's run's just before the chain (an identical run that
      // ended before it was registered has stored its result there); the translator reads a
      // request's texts with one MGET.
      expect(commands.filter((command) => command === 'get' || command === 'mget')).toHaveLength(2);
      expect(commands.filter((command) => command === 'set')).toHaveLength(1);
    } finally {
      await monitor.close();
    }
  });

  it('translates 你好，世界 to text containing hello and world through the public endpoint', async () => {
    const { status, body } = await translate({ text: '你好，世界', source: 'zh-CN', target: 'en' });
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    expect(String(body.data?.translatedText).toLowerCase()).toMatch(/hello.*world/);
    expect(body.data).toMatchObject({ source: 'zh-CN', target: 'en', engine: 'offline', cached: false });
  });

  it('answers the same request again from the hot cache, with duration close to 0', async () => {
    const { body } = await translate({ text: '你好，世界', target: 'en' });
    expect(body.data).toMatchObject({ cached: true, engine: 'offline' });
    expect(body.data?.duration as number).toBeLessThan(0.05);
  });

  it('fails text outside the model lexicon with 503 TRANSLATION_UNAVAILABLE instead of inventing output', async () => {
    const { status, body } = await translate({ text: '量子计算机', target: 'en' });
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 50302, error: 'TRANSLATION_UNAVAILABLE' });
  });

  it('publishes each new translation as TranslationCompleted through the outbox', async () => {
    const codec = new EventCodec();
    const seen: { entityType: string; translatedText: string; engine: string }[] = [];
    const consumer = new KafkaConsumer(testKafka('e2e-tr-check'), {
      groupId: `${prefix}check`,
      topics: [topicName('translationCompleted', prefix)],
      logger: silentLogger(),
      fromBeginning: true,
    });
    await consumer.start(async (m) => {
      const event = codec.decode(m.value, m.headers) as { data: (typeof seen)[number] };
      seen.push(event.data);
    });
    try {
      await waitFor('the TranslationCompleted event', () =>
        seen.some((d) => /hello/i.test(d.translatedText)),
      );
      expect(seen.find((d) => /hello/i.test(d.translatedText))).toMatchObject({
        entityType: 'text',
        engine: 'offline',
      });
    } finally {
      await consumer.stop();
    }
  });

  it('lists languages as online while the translator runs, and the built-in list once it is gone', async () => {
    const online = (await (await fetch(`${gateway}/api/v1/translate/languages`)).json()) as {
      data: { online: boolean };
    };
    expect(online.data.online).toBe(true);
    const translator = running.get('translator')!;
    translator.child.kill('SIGTERM');
    await translator.exited;
    const offline = (await (await fetch(`${gateway}/api/v1/translate/languages`)).json()) as {
      data: { online: boolean; languages: unknown[] };
    };
    expect(offline.data).toMatchObject({ online: false });
    expect(offline.data.languages.length).toBeGreaterThanOrEqual(50);
  });
});
