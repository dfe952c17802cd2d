import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { KafkaConsumer } from '@tp/kafka';
import { buildTinyModel } from '@tp/models';
import { EventCodec } from '@tp/schemas';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { silentLogger } from '../harness/logger.js';
import { freePort, runService, type ServiceProcess } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

// A fresh stack with no translation engine configured: only the tiny offline model that `npm start`
// installs. Real processes, real Kafka/Postgres/Redis.
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
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
  };
  for (const [name, port] of Object.entries(ports)) running.set(name, runService(name, env, port));
  for (const [name, proc] of running) {
    await waitFor(
      `${name} /health`,
      async () => (await fetch(`${proc.url}/health`).catch(() => null))?.ok === true,
    );
  }
  gateway = running.get('gateway')!.url;
}, 60_000);

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

describe('translation on a fresh stack with only the tiny offline model', () => {
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
