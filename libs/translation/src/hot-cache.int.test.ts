import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, connectInBackground, createRedis, type RedisClient } from '@tp/redis';

import { silentLogger } from '@tp/test/harness/logger';
import { redisRelay } from '@tp/test/harness/redis-relay';
import { waitFor } from '@tp/test/harness/wait';
import { HOT_CACHE_TTL_SECONDS, HotCache, hotCacheKey } from './hot-cache.js';

const entry = {
  translatedText: 'Guten Morgen',
  source: 'en',
  engine: 'deepl',
  cachedAt: '2025-01-01T00:00:00Z',
  fallback: false,
};

describe('HotCache on a real Redis', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let redis: RedisClient;
  let down: RedisClient;

  beforeAll(async () => {
    redis = createRedis({ url: process.env.REDIS_URL as string, logger: silentLogger() });
    down = createRedis({ url: 'redis://127.0.0.1:1/0', logger: silentLogger(), timeoutMs: 200 });
    connectInBackground(redis);
    connectInBackground(down);
    await waitFor('redis ready', () => redis.isReady);
  });

  afterAll(async () => {
    await closeRedis(redis);
    await closeRedis(down);
  });

  it('stores a complete translation for 24 hours under prefix + tr: + hash, and reads it back', async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'en', target: 'de', text: 'Good morning' };
    expect(await cache.store(input, { ...entry, truncated: false })).toBe(true);
    expect(await cache.read(input)).toEqual(entry);
    const ttl = await redis.ttl(hotCacheKey(input, prefix));
    expect(ttl).toBeGreaterThan(HOT_CACHE_TTL_SECONDS - 60);
    expect(await cache.read({ ...input, target: 'fr' })).toBeUndefined();
  });

  it("keeps the fallback flag of a weaker engine's result, so a hit says so too", async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'en', target: 'de', text: 'Good evening' };
    const weak = { ...entry, engine: 'mymemory', fallback: true };
    expect(await cache.store(input, { ...weak, truncated: false })).toBe(true);
    expect(await cache.read(input)).toEqual(weak);
  });

  it('reads an entry written before the flag existed as not fallback', async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'en', target: 'de', text: 'Good night' };
    const { fallback: _f, ...old } = entry;
    await redis.set(hotCacheKey(input, prefix), JSON.stringify(old));
    expect(await cache.read(input)).toEqual({ ...old, fallback: false });
  });

  it('never stores a truncated translation', async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'de', target: 'en', text: 'Ein langer Text' };
    expect(await cache.store(input, { ...entry, truncated: true })).toBe(false);
    expect(await redis.exists(hotCacheKey(input, prefix))).toBe(0);
  });

  it("reads many texts' entries in order in one MGET, and stores many with one round trip, truncated left out", async () => {
    const cache = new HotCache(redis, prefix);
    const input = (text: string) => ({ source: 'en', target: 'it', text });
    const stored = await cache.storeMany([
      { input: input('One'), entry: { ...entry, translatedText: 'Uno', truncated: false } },
      { input: input('Two'), entry: { ...entry, translatedText: 'Du', truncated: true } },
      { input: input('Three'), entry: { ...entry, translatedText: 'Tre', truncated: false } },
    ]);
    expect(stored).toBe(true);
    const texts = ['Three', 'Two', 'Four', 'One'];
    const read = await cache.readMany(texts.map(input));
    expect(read.map((hit) => hit?.translatedText)).toEqual(['Tre', undefined, undefined, 'Uno']);
    expect(await redis.ttl(hotCacheKey(input('Three'), prefix))).toBeGreaterThan(HOT_CACHE_TTL_SECONDS - 60);
    expect(await cache.readMany([])).toEqual([]);
  });

  it('misses and skips, without throwing, while Redis is unreachable', async () => {
    const cache = new HotCache(down, prefix);
    const input = { source: 'en', target: 'de', text: 'Good morning' };
    expect(await cache.read(input)).toBeUndefined();
    expect(await cache.store(input, { ...entry, truncated: false })).toBe(false);
    expect(await cache.readMany([input, input])).toEqual([undefined, undefined]);
  });

  it('misses and skips within its timeout while Redis does not answer', async () => {
    const relay = await redisRelay(process.env.REDIS_URL as string);
    const hung = createRedis({ url: relay.url, logger: silentLogger() });
    try {
      connectInBackground(hung);
      await waitFor('redis ready', () => hung.isReady);
      relay.hang();
      const cache = new HotCache(hung, prefix, HOT_CACHE_TTL_SECONDS, 100);
      const input = { source: 'en', target: 'de', text: 'Good morning' };
      const started = Date.now();
      expect(await cache.read(input)).toBeUndefined();
      expect(await cache.store(input, { ...entry, truncated: false })).toBe(false);
      expect(await cache.readMany([input])).toEqual([undefined]);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      hung.destroy();
      await relay.close();
    }
  });

  it('treats a corrupt entry as a miss', async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'en', target: 'ja', text: 'Thank you' };
    await redis.set(hotCacheKey(input, prefix), 'not json', { expiration: { type: 'EX', value: 60 } });
    expect(await cache.read(input)).toBeUndefined();
  });

  it('keeps a translation of HTML or Markdown apart from the same characters as plain text', async () => {
    const cache = new HotCache(redis, prefix);
    const plain = { source: 'en', target: 'es', text: '<b>big</b>' };
    const html = { ...plain, format: 'html' };
    await cache.store(html, { ...entry, translatedText: '<b>grande</b>', truncated: false });

    expect(await cache.read(plain)).toBeUndefined();
    expect(await cache.read({ ...plain, format: 'markdown' })).toBeUndefined();
    expect((await cache.read(html))?.translatedText).toBe('<b>grande</b>');
    // Plain text keeps the spec's key, whether `format` is absent or `text`.
    expect(hotCacheKey({ ...plain, format: 'text' }, prefix)).toBe(hotCacheKey(plain, prefix));
  });
});
