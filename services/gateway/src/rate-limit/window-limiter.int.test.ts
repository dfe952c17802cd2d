import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, createRedis, type RedisClient } from '@tp/redis';
import { createLogger } from '@tp/runtime';

import { WindowLimiter, type WindowLimiterOptions } from './window-limiter.js';

let redis: RedisClient;
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  redis = createRedis({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0', logger });
  await redis.connect();
});

afterAll(async () => {
  await closeRedis(redis);
});

const options = (points: number): WindowLimiterOptions => ({
  points,
  windowSeconds: 60,
  keyPrefix: `test:${randomBytes(4).toString('hex')}:rl:`,
  syncMs: 1_000_000, // the tests call sync() themselves
  timeoutMs: 250,
  maxKeys: 1000,
});
const NOW = 1_800_000_000_000; // a fixed instant, 0 ms into a 60 s window

describe('WindowLimiter', () => {
  it('allows exactly `points` requests per key in a window and reports what is left', () => {
    const limiter = new WindowLimiter(redis, options(3));
    const decisions = [1, 2, 3, 4].map(() => limiter.consume('a', NOW));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions[0]?.resetMs).toBe(60_000);
    expect(limiter.consume('b', NOW).allowed).toBe(true);
  });

  it('starts counting again in the next window', () => {
    const limiter = new WindowLimiter(redis, options(1));
    expect(limiter.consume('a', NOW).allowed).toBe(true);
    expect(limiter.consume('a', NOW + 59_999).allowed).toBe(false);
    expect(limiter.consume('a', NOW + 60_000).allowed).toBe(true);
  });

  it('adds its counts to Redis on sync, and another replica refuses once it has synced', async () => {
    const shared = { ...options(5), windowSeconds: 86_400 };
    const first = new WindowLimiter(redis, shared);
    const second = new WindowLimiter(redis, shared);
    const now = Date.now();
    for (let i = 0; i < 4; i += 1) first.consume('client', now);
    await first.sync();
    const window = Math.floor(now / 86_400_000);
    expect(await redis.get(`${shared.keyPrefix}${window}:client`)).toBe('4');
    expect(await redis.ttl(`${shared.keyPrefix}${window}:client`)).toBeGreaterThan(0);

    // The second replica has not heard of the client yet: one more request fits the limit of 5.
    expect(second.consume('client', now)).toMatchObject({ allowed: true, remaining: 4 });
    await second.sync();
    expect(second.consume('client', now)).toMatchObject({ allowed: false, remaining: 0 });
    await first.sync();
    expect(await redis.get(`${shared.keyPrefix}${window}:client`)).toBe('5');
  });

  it('keeps limiting in memory without Redis, and sends the counts once Redis is back', async () => {
    const down = createRedis({ url: 'redis://127.0.0.1:9/0', logger });
    const offline = new WindowLimiter(down, options(2));
    const decisions = [1, 2, 3].map(() => offline.consume('a').allowed);
    await offline.sync();
    expect(decisions).toEqual([true, true, false]);

    // The same counts, held while Redis was unreachable, are all sent by a later sync.
    const opts = { ...options(10), windowSeconds: 86_400 }; // no window boundary during the test
    const flaky = new WindowLimiter(redis, opts);
    await redis.disconnect();
    flaky.consume('a');
    flaky.consume('a');
    await flaky.sync();
    await redis.connect();
    flaky.consume('a');
    await flaky.sync();
    const window = Math.floor(Date.now() / 86_400_000);
    expect(await redis.get(`${opts.keyPrefix}${window}:a`)).toBe('3');
  });

  it('keeps at most maxKeys clients in memory however many addresses come', () => {
    const limiter = new WindowLimiter(undefined, { ...options(5), maxKeys: 100 });
    for (let n = 0; n < 10_000; n += 1) limiter.consume(`client-${n}`, NOW);
    expect(limiter.size).toBe(100);
    // The most recent ones are still counted.
    for (let n = 0; n < 4; n += 1) limiter.consume('client-9999', NOW);
    expect(limiter.consume('client-9999', NOW).allowed).toBe(false);
  });
});
