import { createHash } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { hotCacheHash, hotCacheKey, HOT_CACHE_TTL_SECONDS } from '@tp/translation';

import { startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
import { closedPortUrl } from '@tp/test/doubles/http-double';
import { waitFor } from '@tp/test/harness/wait';
import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';
import type { TranslationResult } from './translate-text.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('POST /translate with the hot cache (Redis) and the outbox (Postgres)', () => {
  let deepl: DeepLDouble;
  let translator: TestTranslator;

  beforeAll(async () => {
    deepl = await startDeepLDouble();
    translator = await startTestTranslator({
      PRIMARY_ENGINE: 'deepl',
      PRIMARY_ENGINE_KEY: 'test-key:fx',
      PRIMARY_ENGINE_URL: deepl.url,
    });
  });

  afterAll(async () => {
    await translator?.close();
    await deepl?.close();
  });

  beforeEach(() => deepl.reset());

  /** Completed translations written to the outbox (or failed to), from the translator's /metrics. */
  async function outboxWrites(): Promise<number> {
    const text = await (await fetch(`${translator.url}/metrics`)).text();
    return [...text.matchAll(/^translation_outbox_(?:writes|failures)_total\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  }

  it('answers a repeated request from the cache: no engine call, cached: true, duration near 0', async () => {
    const request = { text: 'The bus is late', source: 'en', target: 'de' };
    const first = await translator.translate<TranslationResult>(request);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      translatedText: 'Der Bus hat Verspätung',
      cached: false,
      engine: 'deepl',
    });
    expect(deepl.requests).toHaveLength(1);

    const second = await translator.translate<TranslationResult>(request);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      translatedText: 'Der Bus hat Verspätung',
      source: 'en',
      target: 'de',
      engine: 'deepl',
      cached: true,
      truncated: false,
      fallback: false,
      duration: expect.any(Number),
      attempts: [],
    });
    expect(second.body.duration).toBeLessThan(0.05);
    expect(deepl.requests).toHaveLength(1);
  });

  it('keeps the entry in Redis under the shared key (prefix + tr: + 32-hex hash) for 24 hours', async () => {
    const request = { text: 'Thank you', source: 'en', target: 'ja' };
    expect((await translator.translate(request)).status).toBe(200);
    const redis = translator.service.context.deps.redis;
    const key = hotCacheKey(request, translator.config.REDIS_KEY_PREFIX);
    expect(key).toMatch(new RegExp(`^${translator.config.REDIS_KEY_PREFIX}tr:[0-9a-f]{32}$`));
    expect(JSON.parse((await redis?.get(key)) ?? 'null')).toMatchObject({
      translatedText: 'ありがとう',
      source: 'en',
      engine: 'deepl',
    });
    const ttl = (await redis?.ttl(key)) ?? 0;
    expect(ttl).toBeGreaterThan(HOT_CACHE_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(HOT_CACHE_TTL_SECONDS);
  });

  it('for auto, caches under the detected language too, so a request naming it hits', async () => {
    const text = 'Der Bus hat Verspätung, und niemand weiß warum.';
    const first = await translator.translate<TranslationResult>({ text, source: 'auto', target: 'en' });
    expect(first.body).toMatchObject({ source: 'de', detectedSource: 'de', cached: false });
    const named = await translator.translate<TranslationResult>({ text, source: 'de', target: 'en' });
    const auto = await translator.translate<TranslationResult>({ text, source: 'auto', target: 'en' });
    expect(named.body).toMatchObject({ source: 'de', cached: true });
    expect(named.body.detectedSource).toBeUndefined();
    expect(auto.body).toMatchObject({ source: 'de', detectedSource: 'de', cached: true });
    expect(deepl.requests).toHaveLength(1);
  });

  it('writes a TranslationCompleted event to the outbox for a translation, and none for a cache hit', async () => {
    const text = 'Good morning';
    const hash = hotCacheHash({ source: 'en', target: 'fr', text });
    const rowsFor = async () => (await translator.outbox()).filter((row) => row.event.data.entityId === hash);
    const reply = await translator.translate<TranslationResult>(
      { text, source: 'en', target: 'fr' },
      { 'x-request-id': 'req-outbox-1', 'x-correlation-id': 'corr-outbox-1' },
    );
    expect(reply.body).toMatchObject({ translatedText: 'Bonjour', cached: false });

    await waitFor('the outbox row', async () => (await rowsFor()).length > 0);
    const [row] = await rowsFor();
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(row?.topic).toBe(`${translator.config.KAFKA_TOPIC_PREFIX}translation.completed.v1`);
    expect(row?.messageKey).toBe(`text:${hash}:fr`);
    expect(row?.event).toMatchObject({
      eventType: 'TranslationCompleted',
      eventVersion: 6,
      correlationId: 'corr-outbox-1',
      causationId: 'req-outbox-1',
      data: {
        entityType: 'text',
        entityId: hash,
        field: 'text',
        sourceLang: 'en',
        targetLang: 'fr',
        translatedText: 'Bonjour',
        sourceHash: sha256(text),
        sourceVersion: 0,
        engine: 'deepl',
        truncated: false,
        detectedSourceLang: null,
        requestedAt: expect.any(Number),
        fallback: false,
      },
    });

    const hit = await translator.translate<TranslationResult>({ text, source: 'en', target: 'fr' });
    expect(hit.body.cached).toBe(true);
    // Writes are asynchronous, and a write starts before its answer is sent. A miss asked after the
    // hit is the barrier: once its own write has landed (counted), a write the hit started earlier
    // would have been counted too.
    const writesBefore = await outboxWrites();
    const miss = await translator.translate<TranslationResult>({
      text: 'Good evening',
      source: 'en',
      target: 'fr',
    });
    expect(miss.body.cached).toBe(false);
    await waitFor('the miss written', async () => (await outboxWrites()) >= writesBefore + 1);
    expect(await outboxWrites()).toBe(writesBefore + 1);
    expect(await rowsFor()).toHaveLength(1);
  });

  it("writes a batch's translations as one TranslationCompleted, each text under its own entity", async () => {
    const texts = ['Good night', 'Good luck', 'Good bye'];
    const hashes = texts.map((text) => hotCacheHash({ source: 'en', target: 'fr', text }));
    const reply = await translator.batch({ texts, source: 'en', target: 'fr' });
    expect(reply.body.failed).toBe(0);
    const rowsOfRequest = async () =>
      (await translator.outbox()).filter((row) => hashes.includes(row.event.data.entityId));
    await waitFor('the outbox row', async () => (await rowsOfRequest()).length > 0);

    const rows = await rowsOfRequest();
    expect(rows).toHaveLength(1);
    const data = rows[0]?.event.data;
    expect(data).toMatchObject({ entityType: 'text', entityId: hashes[0], targetLang: 'fr' });
    expect(data?.moreResults.map((result) => [result.entityId, result.sourceHash])).toEqual([
      [hashes[1], sha256('Good luck')],
      [hashes[2], sha256('Good bye')],
    ]);
  });

  it('records the detected language in the event for auto', async () => {
    const text = 'Buenos días, ¿cómo estás? Hoy hace mucho calor en la ciudad.';
    const reply = await translator.translate<TranslationResult>({ text, source: 'auto', target: 'de' });
    expect(reply.body).toMatchObject({ source: 'es', detectedSource: 'es' });
    await waitFor('the outbox row', async () =>
      (await translator.outbox()).some((row) => row.event.data.sourceHash === sha256(text)),
    );
    const row = (await translator.outbox()).find((r) => r.event.data.sourceHash === sha256(text));
    expect(row?.event.data).toMatchObject({
      sourceLang: 'es',
      detectedSourceLang: 'es',
      entityId: hotCacheHash({ source: 'es', target: 'de', text }),
    });
  });
});

describe('POST /translate with Redis unreachable', () => {
  let deepl: DeepLDouble;
  let translator: TestTranslator;

  beforeAll(async () => {
    deepl = await startDeepLDouble();
    const closed = new URL(await closedPortUrl());
    translator = await startTestTranslator({
      PRIMARY_ENGINE: 'deepl',
      PRIMARY_ENGINE_KEY: 'test-key:fx',
      PRIMARY_ENGINE_URL: deepl.url,
      REDIS_URL: `redis://${closed.host}/0`,
    });
  });

  afterAll(async () => {
    await translator?.close();
    await deepl?.close();
  });

  it('still translates, every time through the engine, since nothing can be cached', async () => {
    expect(translator.service.context.deps.redis?.isReady).toBe(false);
    const request = { text: 'Good morning', source: 'en', target: 'it' };
    const first = await translator.translate<TranslationResult>(request);
    const second = await translator.translate<TranslationResult>(request);
    for (const reply of [first, second]) {
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ translatedText: 'Buongiorno', engine: 'deepl', cached: false });
    }
    expect(deepl.requests.filter((r) => r.path === '/v2/translate')).toHaveLength(2);
  });
});
