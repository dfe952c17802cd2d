import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll } from '@jest/globals';
import { OutboxMessage, type Orm } from '@tp/db';
import { buildTinyModel, ZH_EN_LEXICON } from '@tp/models';
import { splitTuning } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import type { TranslationCompleted } from '@tp/contracts';
import type { TranslateBatchAnswer } from '@tp/service-contracts';

import { loadTranslatorConfig, TRANSLATOR_TUNING, type TranslatorConfig } from '../src/config.js';
import { startTranslator } from '../src/translator.js';
import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { uniquePrefix } from '@tp/test/harness/kafka';
import { waitFor } from '@tp/test/harness/wait';

export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** An outbox row with its event decoded. */
export interface OutboxRow {
  readonly topic: string;
  readonly messageKey: string | null;
  readonly event: TranslationCompleted;
}

export interface TestTranslator {
  readonly url: string;
  readonly config: TranslatorConfig;
  readonly service: Awaited<ReturnType<typeof startTranslator>>;
  /** POST /translate with a JSON body (a string is sent as it is, for malformed bodies). */
  translate<T = Record<string, unknown>>(body: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  /** POST /translate/batch with a JSON body. */
  batch(body: unknown): Promise<Reply<TranslateBatchAnswer & Record<string, unknown>>>;
  get<T = Record<string, unknown>>(path: string): Promise<Reply<T>>;
  /** Every outbox row, oldest first. */
  outbox(): Promise<OutboxRow[]>;
  /** The translator's database, through MikroORM's entities (e.g. to write glossaries as the gateway does). */
  readonly orm: Orm;
  close(): Promise<void>;
}

/**
 * The translator's config for a test: its own database, key and topic prefixes and no models; named
 * constants a test shortens (TRANSLATOR_TUNING) go in-process, the rest is the environment.
 */
function testTranslatorConfig(db: TestDatabase, settings: Record<string, string>): TranslatorConfig {
  const { tuning, env } = splitTuning(TRANSLATOR_TUNING, {
    ENGINE_RETRY_BACKOFF_MS: '10',
    BREAKER_COOLDOWN_MS: '100',
    QUOTA_COOLDOWN_MS: '100',
    ...settings,
  });
  const config = loadTranslatorConfig(
    {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      REDIS_KEY_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
      KAFKA_TOPIC_PREFIX: uniquePrefix('translator'),
      MODELS_DIR: join(tmpdir(), `tp-no-models-${randomBytes(4).toString('hex')}`),
      ...env,
    },
    tuning,
  );
  return { ...config, PORT: 0 };
}

/**
 * The real translator, in-process on an ephemeral port, with its own database, Redis key prefix and
 * topic prefix, and the test Kafka. No engine but OpenCC (on by default, zh-CN <-> zh-TW only) is
 * configured unless `settings` says so (`OPENCC_ENABLED: 'false'` leaves none); retries back
 * off for 10 ms and breakers cool down in 100 ms, so a test's faults do not leak into the next test.
 */
export async function startTestTranslator(settings: Record<string, string> = {}): Promise<TestTranslator> {
  const db: TestDatabase = await createTestDatabase();
  const config = testTranslatorConfig(db, settings);
  const service = await startTranslator(config).catch(async (err: unknown) => {
    await db.drop();
    throw err;
  });
  const redis = service.context.deps.redis;
  // Redis connects in the background; cache tests need it up (unless a test points it elsewhere).
  if (settings.REDIS_URL === undefined) await waitFor('redis ready', () => redis?.isReady === true);
  const url = `http://127.0.0.1:${service.port}`;
  const codec = new EventCodec();
  const orm = service.context.deps.orm;
  if (!orm) throw new Error('translator has no database');

  const post = async <T>(path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  };

  return {
    url,
    config,
    service,
    translate: (body, headers) => post('/translate', body, headers),
    batch: (body) => post('/translate/batch', body),
    async get<T>(path: string) {
      const res = await fetch(`${url}${path}`);
      return { status: res.status, headers: res.headers, body: (await res.json()) as T };
    },
    orm,
    async outbox() {
      const rows = await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
      return rows.map((row) => ({
        topic: row.topic,
        messageKey: row.messageKey ?? null,
        event: codec.decode(Buffer.from(row.payload), row.headers) as TranslationCompleted,
      }));
    },
    async close() {
      await service.stop();
      await db.drop();
    },
  };
}

/**
 * The translator of a test file on the real Apertium (APy, started by jest's global setup): started
 * before the file's tests and closed after them; the function returned gives it to a test.
 */
export function apertiumTranslator(settings: Record<string, string> = {}): () => TestTranslator {
  const apertiumUrl = process.env.APERTIUM_URL;
  if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');
  let translator: TestTranslator | undefined;
  beforeAll(async () => {
    translator = await startTestTranslator({ APERTIUM_URL: apertiumUrl, ...settings });
  });
  afterAll(async () => {
    await translator?.close();
  });
  return () => {
    if (!translator) throw new Error('the translator has not started (beforeAll failed)');
    return translator;
  };
}

/**
 * A models folder holding the tiny zh -> en test model; `settings` point a translator at it and allow
 * it (the translator refuses test models otherwise); remove() deletes it.
 */
export async function tinyModelsDir(): Promise<{
  dir: string;
  settings: { MODELS_DIR: string; ALLOW_TEST_MODELS: 'true' };
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'tp-translator-models-'));
  await buildTinyModel(join(dir, 'opus-mt-zh-en-tiny'), { lexicon: ZH_EN_LEXICON });
  return {
    dir,
    settings: { MODELS_DIR: dir, ALLOW_TEST_MODELS: 'true' },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Waits until every configured engine's breaker is in one of `states`: `closed` between tests, so a
 * test never inherits a breaker a previous test opened; `half-open` once a cooldown has passed (the
 * next call is a trial).
 */
export async function waitForBreakers(
  translator: TestTranslator,
  states: readonly string[] = ['closed'],
): Promise<void> {
  await waitFor(`circuit breakers ${states.join(' or ')}`, async () => {
    const { body } = await translator.get<{ engines: { breaker?: string }[] }>('/engines');
    return body.engines.every((engine) => engine.breaker === undefined || states.includes(engine.breaker));
  });
}
