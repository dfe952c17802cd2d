import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HotCache, LANGUAGES, PUBLISHED_CODES } from '@tp/translation';
import { createClient } from 'redis';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// The translator is down here (the fixture points TRANSLATOR_URL at a closed port): these tests show
// what the gateway does on its own. Translations through a running translator are in the e2e tier.
let gateway: TestGateway;
const redis = createClient({ url: process.env.REDIS_URL });

beforeAll(async () => {
  gateway = await startTestGateway({ MAX_TEXT_CHARS: '100' });
  await redis.connect();
});

afterAll(async () => {
  await gateway?.close();
  await redis.close();
});

async function translate(body: unknown) {
  const res = await fetch(`${gateway.url}/api/v1/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('GET /api/v1/translate/languages with the translator down', () => {
  it('answers quickly with the built-in list and online: false', async () => {
    const started = performance.now();
    const res = await fetch(`${gateway.url}/api/v1/translate/languages`);
    const elapsed = performance.now() - started;
    const body = (await res.json()) as {
      code: number;
      data: { online: boolean; languages: { code: string; dir: string }[] };
    };
    expect(res.status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.data.online).toBe(false);
    expect(body.data.languages.length).toBeGreaterThanOrEqual(50);
    expect(body.data.languages.map((l) => l.code)).toEqual(expect.arrayContaining([...PUBLISHED_CODES]));
    expect(body.data.languages.find((l) => l.code === 'ar')?.dir).toBe('rtl');
    expect(body.data.languages).toEqual(LANGUAGES);
    expect(elapsed).toBeLessThan(2000);
  });
});

describe('POST /api/v1/translate at the gateway', () => {
  it('answers a cached translation without the translator, with duration close to 0', async () => {
    const cache = new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX);
    await cache.store(
      { source: 'zh-CN', target: 'en', text: '早上好' },
      {
        translatedText: 'good morning',
        source: 'zh-CN',
        engine: 'deepl',
        cachedAt: new Date().toISOString(),
        truncated: false,
      },
    );
    const { status, body } = await translate({ text: '早上好', target: 'en' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      code: 0,
      data: { translatedText: 'good morning', source: 'zh-CN', target: 'en', cached: true, engine: 'deepl' },
    });
    expect((body.data as { duration: number }).duration).toBeLessThan(0.05);
  });

  it('normalises language tags before the cache lookup (zh-cn, en-US)', async () => {
    const { status, body } = await translate({ text: '早上好', source: 'zh-cn', target: 'en-US' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ data: { source: 'zh-CN', target: 'en', cached: true } });
  });

  it('answers 503 TRANSLATOR_UNAVAILABLE on a cache miss while the translator is down', async () => {
    const { status, body } = await translate({ text: '从未翻译过的句子', target: 'en' });
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 50303, error: 'TRANSLATOR_UNAVAILABLE' });
  });

  it.each([
    ['a missing target', 400, 'VALIDATION_FAILED', { text: 'hi' }],
    ['a missing text', 400, 'VALIDATION_FAILED', { target: 'en' }],
    ['empty text', 400, 'VALIDATION_FAILED', { text: '', target: 'en' }],
    ['text that is a number', 400, 'VALIDATION_FAILED', { text: 42, target: 'en' }],
    ['an unknown field', 400, 'VALIDATION_FAILED', { text: 'hi', target: 'en', engine: 'deepl' }],
    ['an unknown target language', 400, 'UNSUPPORTED_LANGUAGE', { text: 'hi', target: 'xx-klingon' }],
    ['auto as the target', 400, 'UNSUPPORTED_LANGUAGE', { text: 'hi', target: 'auto' }],
    [
      'an unknown source language',
      400,
      'UNSUPPORTED_LANGUAGE',
      { text: 'hi', source: 'elvish', target: 'en' },
    ],
    ['text over the hard maximum', 413, 'TEXT_TOO_LONG', { text: 'x'.repeat(101), target: 'en' }],
    ['a body that is an array', 400, 'VALIDATION_FAILED', []],
  ])('answers %s with %i %s', async (_label, status, error, body) => {
    const res = await translate(body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error, request_id: expect.any(String) });
  });
});
