/**
 * Characters counted where they are spent (issue 35): POST /api/v1/translate of the real gateway, its
 * translator and the shared Apertium, read back through GET /api/v1/usage.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HotCache } from '@tp/translation';
import { createClient } from 'redis';

import {
  startApertiumStack,
  startTestGateway,
  type ApertiumStack,
  type TestGateway,
} from '../../test/gateway-fixture.js';
import type { UsageReport } from './read-usage.js';

let stack: ApertiumStack;
let gateway: TestGateway;
let cache: HotCache;
const redis = createClient({ url: process.env.REDIS_URL });

beforeAll(async () => {
  stack = await startApertiumStack();
  gateway = stack.gateway;
  await redis.connect();
  cache = new HotCache(redis as never, stack.translator.config.REDIS_KEY_PREFIX);
});

afterAll(async () => {
  await stack?.close();
  await redis.close();
});

/** The translator stores a translation in the hot cache after answering: waits until it is there. */
async function cachedBy(text: string): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (await cache.read({ source: 'en', target: 'es', text })) return;
    await sleep(50);
  }
  throw new Error(`"${text}" never reached the hot cache`);
}

async function translate(text: string, key?: string) {
  const res = await fetch(`${gateway.url}/api/v1/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ text, source: 'en', target: 'es' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function usageOf(key: string): Promise<UsageReport> {
  const res = await fetch(`${gateway.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: UsageReport }).data;
}

/** The key's usage once `done` holds: unbudgeted characters are written within a second. */
async function usageWhen(key: string, done: (u: UsageReport) => boolean): Promise<UsageReport> {
  for (let tries = 0; ; tries += 1) {
    const now = await usageOf(key);
    if (done(now) || tries === 60) return now;
    await sleep(100);
  }
}

const unique = () => Math.random().toString(36).slice(2, 8);

describe('characters of POST /api/v1/translate', () => {
  it('counts what the engines translated, then a repeat as cached, for the key that asked', async () => {
    const { key } = await gateway.store.create('client', 'translator');
    // A text of its own: no other test (or earlier run) has put it in the hot cache.
    const text = `The shop sells fresh vegetables ${unique()}.`;
    const first = await translate(text, key);
    expect(first).toMatchObject({ status: 200, body: { data: { engine: 'apertium', cached: false } } });
    const translated = await usageWhen(key, (u) => u.month.characters > 0);
    expect(translated.month).toMatchObject({ characters: text.length, cached_characters: 0 });

    await cachedBy(text);
    const again = await translate(text, key);
    expect(again).toMatchObject({ status: 200, body: { data: { cached: true } } });
    const cached = await usageWhen(key, (u) => u.month.cached_characters > 0);
    expect(cached).toMatchObject({
      character_count: text.length,
      day: { characters: text.length, cached_characters: text.length },
      month: { characters: text.length, cached_characters: text.length },
    });
  });

  it('refuses a translation past the monthly budget before the engines, and still serves cache hits', async () => {
    const text = `Good morning ${unique()}.`;
    const { key } = await gateway.store.create('client', 'budgeted', {
      limits: { charactersPerMonth: text.length + 5 },
    });
    expect((await translate(text, key)).status).toBe(200);
    await cachedBy(text);
    const refused = await translate(`Good night ${unique()}.`, key);
    expect(refused).toMatchObject({
      status: 429,
      body: {
        error: 'QUOTA_EXCEEDED',
        details: { budget: 'characters_per_month', remaining: 5, limit: text.length + 5 },
      },
    });
    // Cache hits cost nothing, so a spent budget still serves them.
    expect(await translate(text, key)).toMatchObject({ status: 200, body: { data: { cached: true } } });
    expect(await usageOf(key)).toMatchObject({ month: { characters: text.length, remaining: 5 } });
  });

  it('counts a batch: hot-cache hits as cached, the texts the engines translated as translated', async () => {
    const { key } = await gateway.store.create('client', 'batch');
    const known = `Fresh fruit ${unique()}.`;
    await translate(known);
    await cachedBy(known);
    const fresh = [`Good evening ${unique()}.`, `The vendor sells bread ${unique()}.`];
    const res = await fetch(`${gateway.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ text: [known, ...fresh], source: 'en', target: 'es' }),
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { failed: number; translations: { cached: boolean }[] } };
    expect(data.failed).toBe(0);
    expect(data.translations.map((t) => t.cached)).toEqual([true, false, false]);
    const freshCharacters = fresh.join('').length;
    const counted = await usageWhen(key, (u) => u.month.characters > 0);
    expect(counted.month).toMatchObject({ characters: freshCharacters, cached_characters: known.length });
  });

  it('refuses a whole batch whose texts would pass the budget, before any engine', async () => {
    const { key } = await gateway.store.create('client', 'batch budget', {
      limits: { charactersPerMonth: 30 },
    });
    const res = await fetch(`${gateway.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        text: [`One more ${unique()}.`, `And another ${unique()}.`, `Third ${unique()}.`],
        source: 'en',
        target: 'es',
      }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: 'QUOTA_EXCEEDED', details: { remaining: 30 } });
    expect((await usageOf(key)).month).toMatchObject({ characters: 0, remaining: 30 });
  });

  it('gives back the characters of a translation that failed', async () => {
    const { key } = await gateway.store.create('client', 'failing', { limits: { charactersPerMonth: 1000 } });
    // No engine of this translator serves English to Korean.
    const res = await fetch(`${gateway.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ text: 'Good morning.', source: 'en', target: 'ko' }),
    });
    expect(res.status).toBe(400);
    const after = await usageWhen(key, (u) => u.month.characters === 0);
    expect(after.month).toMatchObject({ characters: 0, remaining: 1000 });
  });
});

describe('keys on POST /api/v1/translate (issue 35)', () => {
  let limited: TestGateway;

  beforeAll(async () => {
    limited = await startTestGateway({
      TRANSLATOR_URL: stack.translator.url,
      RATE_LIMIT_PUBLIC: '2',
      RATE_LIMIT_PER_KEY: '4',
      // Windows are aligned to the clock: a day-long one keeps a window boundary out of the test.
      RATE_LIMIT_WINDOW_S: '86400',
    });
  });

  afterAll(async () => {
    await limited?.close();
  });

  const post = (text: string, authorization?: string) =>
    fetch(`${limited.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ text, source: 'en', target: 'es' }),
    });

  it("translates with a key past the address's public limit, counted against the key's own", async () => {
    const anonymous = [];
    for (let i = 0; i < 3; i += 1) anonymous.push((await post('The house is red')).status);
    expect(anonymous).toEqual([200, 200, 429]);

    const { key } = await limited.store.create('client', 'keyed translations');
    const keyed = await post('The dog is big.', `Bearer ${key}`);
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('ratelimit-limit')).toBe('4');
    expect(await keyed.json()).toMatchObject({
      data: { translatedText: 'El perro es grande.', engine: 'apertium' },
    });
  });
});
