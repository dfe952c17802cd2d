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

describe('the cache-hit lane in front of Express', () => {
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

  it('answers a hit with the same body and headers as the Express route', async () => {
    // A content-encoding (even identity) keeps a request on the Express path.
    const [lane, express] = await Promise.all([
      post(hitBody),
      post(hitBody, { 'content-encoding': 'identity' }),
    ]);
    const [laneBody, expressBody] = (await Promise.all([lane.json(), express.json()])) as {
      data: { duration: number };
    }[];
    expect(lane.status).toBe(200);
    expect(express.status).toBe(200);
    expect({ ...laneBody, data: { ...laneBody?.data, duration: 0 } }).toEqual({
      ...expressBody,
      data: { ...expressBody?.data, duration: 0 },
    });
    const names = (res: Response) =>
      [...res.headers.keys()]
        .filter((n) => n !== 'date' && n !== 'vary' && !n.startsWith('access-control'))
        .sort();
    expect(names(lane)).toEqual(names(express));
    expect(lane.headers.get('content-type')).toBe(express.headers.get('content-type'));
    expect(lane.headers.get('ratelimit-limit')).toBe(express.headers.get('ratelimit-limit'));
    // Both were counted: one of them saw one request fewer left.
    const remaining = [lane, express].map((r) => Number(r.headers.get('ratelimit-remaining')));
    expect(Math.abs((remaining[0] ?? 0) - (remaining[1] ?? 0))).toBe(1);
    expect(lane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends an entry with quotes, escapes and multi-byte text from its ready bytes exactly as Express does', async () => {
    const tricky = 'say "duration":987654.125 \\ \u2028 🙂 ünïcödé';
    await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(
      { source: 'zh-CN', target: 'de', text: '早上好' },
      { translatedText: tricky, source: 'zh-CN', engine: 'deepl', cachedAt: '', truncated: false },
    );
    const body = JSON.stringify({ text: '早上好', source: 'zh-CN', target: 'de' });
    // Twice through the lane: the second answer is made from the bytes kept from the first.
    const [first, second, express] = await Promise.all([
      post(body),
      post(body),
      post(body, { 'content-encoding': 'identity' }),
    ]);
    const texts = await Promise.all([first.text(), second.text(), express.text()]);
    const withoutDuration = (text: string) => text.replace(/"duration":[\d.e-]+,/, '"duration":0,');
    expect(first.status).toBe(200);
    expect(texts.map(withoutDuration)).toEqual(Array(3).fill(withoutDuration(texts[2] ?? '')));
    expect((JSON.parse(texts[0] ?? '') as { data: { translatedText: string } }).data.translatedText).toBe(
      tricky,
    );
    for (const [i, res] of [first, second].entries()) {
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(texts[i] ?? ''));
    }
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
    const res = await post(hitBody, { 'x-request-id': 'lane-test-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('lane-test-1');
    expect(await count()).toBe(before + 1);
  });

  it('answers malformed JSON with 400 MALFORMED_JSON, as express.json would', async () => {
    for (const body of ['{"text":', '"just a string"', 'null']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'MALFORMED_JSON', request_id: expect.any(String) });
    }
  });

  it('reads a body led by a byte-order mark as express.json does (the mark dropped)', async () => {
    const [lane, express] = await Promise.all([
      post(`\ufeff${hitBody}`),
      post(`\ufeff${hitBody}`, { 'content-encoding': 'identity' }),
    ]);
    expect([lane.status, express.status]).toEqual([200, 200]);
    const texts = (await Promise.all([lane.json(), express.json()])) as {
      data: { translatedText: string };
    }[];
    expect(texts.map((body) => body.data.translatedText)).toEqual(['good morning', 'good morning']);
  });

  it('refuses a hit whose body has an own __proto__ key with 400 VALIDATION_FAILED, as Express does', async () => {
    const body = '{"text":"早上好","target":"en","__proto__":{"x":1}}';
    const [lane, express] = await Promise.all([post(body), post(body, { 'content-encoding': 'identity' })]);
    for (const res of [lane, express]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'VALIDATION_FAILED',
        details: { issues: [{ path: 'body.__proto__' }] },
      });
    }
  });

  it('counts a request once against the public limit when it hands a miss over to Express', async () => {
    const limited = await startTestGateway({
      RATE_LIMIT_PUBLIC: '2',
      RATE_LIMIT_WINDOW_S: '86400',
      REDIS_KEY_PREFIX: gateway.config.REDIS_KEY_PREFIX,
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
