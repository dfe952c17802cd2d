import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, createRedis } from '@tp/redis';
import { createLogger } from '@tp/runtime';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

const LIMITS = {
  RATE_LIMIT_PUBLIC: '3',
  RATE_LIMIT_PER_KEY: '2',
  // Windows are aligned to the clock: a day-long one keeps a window boundary out of the test.
  RATE_LIMIT_WINDOW_S: '86400',
};
let first: TestGateway;
let second: TestGateway;
let noRedis: TestGateway;
let shared: string;

beforeAll(async () => {
  shared = `test:${randomBytes(4).toString('hex')}:`;
  [first, second, noRedis] = await Promise.all([
    startTestGateway({ ...LIMITS, REDIS_KEY_PREFIX: shared }),
    startTestGateway({ ...LIMITS, REDIS_KEY_PREFIX: shared }),
    startTestGateway({ ...LIMITS, REDIS_URL: 'redis://127.0.0.1:9/0' }),
  ]);
});

afterAll(async () => {
  await Promise.all([first?.close(), second?.close(), noRedis?.close()]);
});

/** The count Redis holds for this prefix's current window of `scope`, summed over its keys. */
async function redisTotal(prefix: string, scope: string): Promise<number> {
  const redis = createRedis({
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    logger: createLogger('test', 'silent'),
  });
  await redis.connect();
  try {
    const keys = await redis.keys(`${prefix}rl:${scope}:*`);
    const values = keys.length === 0 ? [] : await redis.mGet(keys);
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  } finally {
    await closeRedis(redis);
  }
}

const languages = (g: TestGateway) => fetch(`${g.url}/api/v1/translate/languages`);
const me = (g: TestGateway, key: string) =>
  fetch(`${g.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe('rate limits', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a client address used up the public limit', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await languages(first)).status);
    const limited = await languages(first);
    expect(statuses).toEqual([200, 200, 200]);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(86400);
    expect(await limited.json()).toMatchObject({ code: 42901, error: 'RATE_LIMITED' });
  });

  it('shares the counters between gateway replicas through Redis', async () => {
    // `first` used up the address's budget above; `second` uses the same Redis prefix: it refuses
    // the address at once, its first request included.
    const limited = await languages(second);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Three allowed through `first` (which refused the fourth from memory), one refused by `second`.
    expect(await redisTotal(shared, 'ip')).toBe(4);
  });

  it('limits each API key on its own', async () => {
    const other = await first.store.create('client', 'other');
    expect((await me(first, first.keys.client)).status).toBe(200);
    expect((await me(first, first.keys.client)).status).toBe(200);
    const limited = await me(first, first.keys.client);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await me(first, other.key)).status).toBe(200);
  });

  it('counts a keyed request on a public route against its key, not its address (issue 35)', async () => {
    const { key } = await second.store.create('client', 'public routes');
    // This address has used up its public limit (the tests above, or these requests).
    for (let i = 0; i < 4 && (await languages(second)).status !== 429; i += 1);
    expect((await languages(second)).status).toBe(429);
    const keyed = () =>
      fetch(`${second.url}/api/v1/translate/languages`, { headers: { authorization: `Bearer ${key}` } });
    const served = await keyed();
    expect(served.status).toBe(200);
    expect(served.headers.get('ratelimit-limit')).toBe(LIMITS.RATE_LIMIT_PER_KEY);
    // The key's own limit of 2 spans public and keyed routes alike.
    expect((await me(second, key)).status).toBe(200);
    expect((await keyed()).status).toBe(429);
  });

  it("applies a key's requests-per-day budget on public routes too", async () => {
    const { key } = await noRedis.store.create('client', 'budgeted', { limits: { requestsPerDay: 1 } });
    const keyed = () =>
      fetch(`${noRedis.url}/api/v1/translate/languages`, { headers: { authorization: `Bearer ${key}` } });
    expect((await keyed()).status).toBe(200);
    const spent = await keyed();
    expect(spent.status).toBe(429);
    expect(await spent.json()).toMatchObject({
      error: 'QUOTA_EXCEEDED',
      details: { budget: 'requests_per_day' },
    });
  });

  it('keeps limiting, per process, when Redis is down, and never fails a request because of it', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await languages(noRedis)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
