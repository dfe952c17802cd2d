import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, connectInBackground, createRedis, type RedisClient } from '@tp/redis';

import { silentLogger } from '@tp/test/harness/logger';
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

  it('misses and skips, without throwing, while Redis is unreachable', async () => {
    const cache = new HotCache(down, prefix);
    const input = { source: 'en', target: 'de', text: 'Good morning' };
    expect(await cache.read(input)).toBeUndefined();
    expect(await cache.store(input, { ...entry, truncated: false })).toBe(false);
  });

  it('treats a corrupt entry as a miss', async () => {
    const cache = new HotCache(redis, prefix);
    const input = { source: 'en', target: 'ja', text: 'Thank you' };
    await redis.set(hotCacheKey(input, prefix), 'not json', { expiration: { type: 'EX', value: 60 } });
    expect(await cache.read(input)).toBeUndefined();
  });

  describe('with a memory tier (withMemory)', () => {
    const stored = (input: { source: string; target: string; text: string }, text: string) =>
      redis.set(hotCacheKey(input, prefix), JSON.stringify({ ...entry, translatedText: text }));

    it('answers an entry it read again from memory, without Redis, until its time is up', async () => {
      const cache = new HotCache(redis, prefix).withMemory(60_000);
      const input = { source: 'en', target: 'de', text: 'Remembered' };
      await stored(input, 'first');
      expect((await cache.read(input))?.translatedText).toBe('first');
      await stored(input, 'second');
      expect((await cache.read(input))?.translatedText).toBe('first');
      await redis.del(hotCacheKey(input, prefix));
      expect((await cache.read(input))?.translatedText).toBe('first');
    });

    it('reads Redis again once the memory time has passed', async () => {
      const cache = new HotCache(redis, prefix).withMemory(30);
      const input = { source: 'en', target: 'de', text: 'Forgotten' };
      await stored(input, 'first');
      expect((await cache.read(input))?.translatedText).toBe('first');
      await stored(input, 'second');
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect((await cache.read(input))?.translatedText).toBe('second');
    });

    it('never remembers a miss: a translation stored after a miss is read at once', async () => {
      const cache = new HotCache(redis, prefix).withMemory(60_000);
      const input = { source: 'en', target: 'de', text: 'Missed first' };
      expect(await cache.read(input)).toBeUndefined();
      await stored(input, 'now there');
      expect((await cache.read(input))?.translatedText).toBe('now there');
    });

    it('drops what it remembered of a key when it stores that key itself', async () => {
      const cache = new HotCache(redis, prefix).withMemory(60_000);
      const input = { source: 'en', target: 'de', text: 'Own write' };
      await stored(input, 'old');
      expect((await cache.read(input))?.translatedText).toBe('old');
      await cache.store(input, { ...entry, translatedText: 'new', truncated: false });
      expect((await cache.read(input))?.translatedText).toBe('new');
    });

    it('holds at most its entry bound: the least recently read entry is read from Redis again', async () => {
      const cache = new HotCache(redis, prefix).withMemory(60_000, 2);
      const inputs = ['one', 'two', 'three'].map((text) => ({ source: 'en', target: 'de', text }));
      for (const input of inputs) await stored(input, `${input.text} v1`);
      for (const input of inputs) await cache.read(input);
      for (const input of inputs) await stored(input, `${input.text} v2`);
      // Newest first, so the read of the evicted one cannot push out an entry still to be checked.
      const texts = [];
      for (const input of [...inputs].reverse()) texts.push((await cache.read(input))?.translatedText);
      expect(texts).toEqual(['three v1', 'two v1', 'one v2']);
    });

    it('with 0 reads Redis on every hit', async () => {
      const cache = new HotCache(redis, prefix).withMemory(0);
      const input = { source: 'en', target: 'de', text: 'No memory' };
      await stored(input, 'first');
      await cache.read(input);
      await stored(input, 'second');
      expect((await cache.read(input))?.translatedText).toBe('second');
    });
  });
});
