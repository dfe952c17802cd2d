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
    // No engine ran: the time is the cache read's (loose bound: test workers share 2 cores).
    expect((body.data as { duration: number }).duration).toBeLessThan(0.25);
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

describe('POST /api/v1/translate with an array of texts, at the gateway', () => {
  beforeAll(async () => {
    const cache = new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX);
    for (const [text, translatedText] of [
      ['Good night', 'Buenas noches'],
      ['Thank you', 'Gracias'],
    ]) {
      await cache.store(
        { source: 'en', target: 'es', text: text as string },
        {
          translatedText: translatedText as string,
          source: 'en',
          engine: 'apertium',
          cachedAt: '',
          truncated: false,
        },
      );
    }
  });

  it('answers texts all in the hot cache without the translator, in the order sent', async () => {
    const { status, body } = await translate({
      text: ['Thank you', 'Good night', 'Thank you'],
      source: 'en',
      target: 'es',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      code: 0,
      data: {
        count: 3,
        failed: 0,
        translations: [
          { translatedText: 'Gracias', cached: true, engine: 'apertium', source: 'en', target: 'es' },
          { translatedText: 'Buenas noches', cached: true },
          { translatedText: 'Gracias', cached: true },
        ],
      },
    });
  });

  it('answers 503 TRANSLATOR_UNAVAILABLE when a text misses and the translator is down', async () => {
    const { status, body } = await translate({
      text: ['Thank you', 'Never seen'],
      source: 'en',
      target: 'es',
    });
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: 'TRANSLATOR_UNAVAILABLE' });
  });

  it.each([
    ['no texts', 400, 'VALIDATION_FAILED', { text: [], target: 'es' }],
    ['129 texts', 400, 'VALIDATION_FAILED', { text: Array(129).fill('a'), target: 'es' }],
    ['a text that is a number', 400, 'VALIDATION_FAILED', { text: ['a', 1], target: 'es' }],
    [
      'texts over the maximum together',
      413,
      'TEXT_TOO_LONG',
      { text: ['x'.repeat(60), 'y'.repeat(41)], target: 'es' },
    ],
    ['an unknown target language', 400, 'UNSUPPORTED_LANGUAGE', { text: ['hi'], target: 'xx-klingon' }],
  ])('answers %s with %i %s', async (_label, status, error, body) => {
    const res = await translate(body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error });
  });

  it.each([
    ['129 texts', Array(129).fill('a')],
    ['a list with a number', ['a', 1]],
    ['a number', 42],
  ])('tells a client who sent %s what text takes', async (_label, text) => {
    const res = await translate({ text, target: 'es' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'VALIDATION_FAILED',
      message: 'body.text: one text, or a list of 1 to 128 texts',
    });
  });
});

describe('POST /api/v1/translate on a pair with a glossary, at the gateway', () => {
  const cache = () => new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX);
  const entry = (translatedText: string) => ({
    translatedText,
    source: 'it',
    engine: 'apertium',
    cachedAt: '',
    truncated: false,
  });

  it('no longer answers a text cached before the glossary, but the entry of the glossary’s version', async () => {
    const key = { source: 'it', target: 'pt', text: 'Il mio amico legge.' };
    await cache().store(key, entry('O meu amigo lê.'));
    expect((await translate({ ...key })).body).toMatchObject({ data: { translatedText: 'O meu amigo lê.' } });

    // Written through this gateway: its view of the glossaries is fresh at once.
    const res = await fetch(`${gateway.url}/api/admin/translate/glossaries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'amici',
        source_lang: 'it',
        target_lang: 'pt',
        entries: [{ source: 'amico', target: 'compadre' }],
      }),
    });
    expect(res.status).toBe(201);
    const { version } = ((await res.json()) as { data: { version: number } }).data;
    // A miss (the translator is down here), not the translation made without the glossary.
    expect((await translate({ ...key })).status).toBe(503);
    await cache().store({ ...key, glossaryVersion: version }, entry('O meu compadre lê.'));
    expect((await translate({ ...key })).body).toMatchObject({
      data: { translatedText: 'O meu compadre lê.', cached: true },
    });
  });
});

describe('POST /api/v1/translate with a format, at the gateway', () => {
  it('answers an HTML text from the hot cache under its format, not under plain text', async () => {
    const cache = new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX);
    const text = '<p>Good <b>night</b></p>';
    await cache.store(
      { source: 'en', target: 'es', text, format: 'html' },
      {
        translatedText: '<p>Buenas <b>noches</b></p>',
        source: 'en',
        engine: 'apertium',
        cachedAt: '',
        truncated: false,
      },
    );

    const html = await translate({ text, source: 'en', target: 'es', format: 'html' });
    const plain = await translate({ text, source: 'en', target: 'es' });

    expect(html.status).toBe(200);
    expect(html.body).toMatchObject({
      data: { translatedText: '<p>Buenas <b>noches</b></p>', cached: true },
    });
    // A miss (the translator is down here): plain text is another translation.
    expect(plain.status).toBe(503);
  });

  it.each([
    ['a formality it does not know', { formality: 'formal' }, 'body.formality'],
    ['a context over 5000 characters', { context: 'c'.repeat(5001) }, 'body.context'],
    ['an empty glossary name', { glossary: '' }, 'body.glossary'],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, controls, path) => {
    const { status, body } = await translate({ text: 'hi', target: 'es', ...controls });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'VALIDATION_FAILED', details: { issues: [{ path }] } });
  });

  it('refuses a format it does not know with 400 VALIDATION_FAILED', async () => {
    const { status, body } = await translate({ text: 'hi', target: 'es', format: 'rtf' });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'body.format' }] },
    });
  });

  it('refuses a 5 MB HTML body up front with 413 PAYLOAD_TOO_LARGE', async () => {
    const { status, body } = await translate({
      text: '<div>'.repeat(1_000_000),
      target: 'es',
      format: 'html',
    });
    expect(status).toBe(413);
    expect(body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('POST /api/v1/translate: a cache hit on the wire', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const hitBody = JSON.stringify({ text: '早上好', target: 'en' });

  beforeAll(async () => {
    await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(
      { source: 'zh-CN', target: 'en', text: '早上好' },
      { translatedText: 'good morning', source: 'zh-CN', engine: 'deepl', cachedAt: '', truncated: false },
    );
  });

  it('answers a hit with the envelope, the public limit headers and a request id', async () => {
    const res = await post(hitBody);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({
      code: 0,
      data: { translatedText: 'good morning', source: 'zh-CN', target: 'en', cached: true, engine: 'deepl' },
    });
  });

  it('sends an entry with quotes, escapes and multi-byte text as it was stored', async () => {
    const tricky = 'say "duration":987654.125 \\ \u2028 🙂 ünïcödé';
    await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(
      { source: 'zh-CN', target: 'de', text: '早上好' },
      { translatedText: tricky, source: 'zh-CN', engine: 'deepl', cachedAt: '', truncated: false },
    );
    const body = JSON.stringify({ text: '早上好', source: 'zh-CN', target: 'de' });
    const res = await post(body);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect((JSON.parse(text) as { data: { translatedText: string } }).data.translatedText).toBe(tricky);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });

  it("echoes the client's x-request-id and counts the hit in the request metrics", async () => {
    const count = async () => {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_request_duration_seconds_count') &&
            l.includes('route="/api/v1/translate"') &&
            l.includes('status="200"'),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await count();
    const res = await post(hitBody, { 'x-request-id': 'hit-test-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('hit-test-1');
    expect(await count()).toBe(before + 1);
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    for (const body of ['{"text":', '"just a string"', 'null']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'MALFORMED_JSON', request_id: expect.any(String) });
    }
  });

  it('reads a body led by a byte-order mark (the mark dropped)', async () => {
    const res = await post(`\ufeff${hitBody}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { translatedText: 'good morning' } });
  });

  it('refuses a hit whose body has an own __proto__ key with 400 VALIDATION_FAILED', async () => {
    const res = await post('{"text":"早上好","target":"en","__proto__":{"x":1}}');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'body.__proto__' }] },
    });
  });

  it('counts each request once against the public limit, hit or miss', async () => {
    // A prefix of its own: the counts of this file's other requests are in Redis under the other one.
    const prefix = `${gateway.config.REDIS_KEY_PREFIX}limited:`;
    await new HotCache(redis as never, prefix).store(
      { source: 'zh-CN', target: 'en', text: '早上好' },
      { translatedText: 'good morning', source: 'zh-CN', engine: 'deepl', cachedAt: '', truncated: false },
    );
    const limited = await startTestGateway({
      RATE_LIMIT_PUBLIC: '2',
      RATE_LIMIT_WINDOW_S: '86400',
      REDIS_KEY_PREFIX: prefix,
    });
    try {
      const url = `${limited.url}/api/v1/translate`;
      const send = (body: string) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const miss = await send(JSON.stringify({ text: '没有缓存的句子', target: 'en' }));
      const hit = await send(hitBody);
      const third = await send(hitBody);
      expect([miss.status, hit.status, third.status]).toEqual([503, 200, 429]);
      expect(third.headers.get('retry-after')).not.toBeNull();
      expect(await third.json()).toMatchObject({ error: 'RATE_LIMITED' });
    } finally {
      await limited.close();
    }
  });
});
