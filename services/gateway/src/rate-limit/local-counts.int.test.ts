import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, createRedis, type RedisClient } from '@tp/redis';
import { createLogger } from '@tp/runtime';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

import { AHEAD_SHARE, LocalCounts } from './local-counts.js';

const POINTS = 1_000;
const clients: RedisClient[] = [];

beforeAll(async () => {
  for (let i = 0; i < 2; i += 1) {
    const client = createRedis({
      url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
      logger: createLogger('test', 'silent'),
    });
    await client.connect();
    clients.push(client);
  }
});

afterAll(async () => {
  await Promise.all(clients.map((client) => closeRedis(client)));
});

/** One replica's counts of a limit shared through Redis under `keyPrefix`. */
const replica = (client: RedisClient, keyPrefix: string) =>
  new LocalCounts(
    new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: true,
      points: POINTS,
      duration: 600,
      keyPrefix,
    }),
    POINTS,
  );

/** The count Redis holds for `key`, once it stops changing (the last batch may still be on its way). */
async function settledTotal(keyPrefix: string, key: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 100; i += 1) {
    const total = Number(await clients[0]!.get(`${keyPrefix}:${key}`));
    if (total === last) return total;
    last = total;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return last;
}

const admitted = (decisions: readonly RateLimiterRes[]) =>
  decisions.filter((decision) => decision.consumedPoints <= POINTS).length;

describe('LocalCounts', () => {
  it("decides a known key's requests in memory, at most 1% of the limit ahead of Redis, and sends Redis every count", async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}`;
    const counts = replica(clients[0]!, prefix);
    expect(counts.consume('a')).toBeInstanceOf(Promise);
    await counts.consume('a');
    const burst = Array.from({ length: 100 }, () => counts.consume('a'));
    const ahead = POINTS * AHEAD_SHARE;
    // Decided at once while the process is less than 1% of the limit ahead of Redis; then waiting for it.
    expect(burst.slice(0, ahead).every((decision) => decision instanceof RateLimiterRes)).toBe(true);
    expect(burst[ahead]).toBeInstanceOf(Promise);
    const decisions = await Promise.all(burst);
    expect(admitted(decisions)).toBe(100);
    expect(decisions.at(-1)?.remainingPoints).toBe(POINTS - 102);
    expect(await settledTotal(prefix, 'a')).toBe(102);
  });

  it('lets two replicas sharing a limit admit it, and at most 2% more in a burst (the documented tolerance)', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}`;
    const [first, second] = [replica(clients[0]!, prefix), replica(clients[1]!, prefix)];
    await Promise.all([first.consume('b'), second.consume('b')]);
    const burst: (RateLimiterRes | Promise<RateLimiterRes>)[] = [];
    for (let i = 0; i < 1_500; i += 1) burst.push(first.consume('b'), second.consume('b'));
    const total = 2 + admitted(await Promise.all(burst));
    expect(total).toBeGreaterThanOrEqual(POINTS);
    expect(total).toBeLessThanOrEqual(POINTS * (1 + 2 * AHEAD_SHARE));
    // Each replica now refuses from memory, and Redis holds every admitted request.
    expect(first.refused('b')).toBeInstanceOf(RateLimiterRes);
    expect(second.refused('b')).toBeInstanceOf(RateLimiterRes);
    expect(await settledTotal(prefix, 'b')).toBe(total);
  });
});
