import { afterAll, describe, expect, it } from '@jest/globals';

import { silentLogger } from '@tp/test/harness/logger';
import { redisRelay } from '@tp/test/harness/redis-relay';
import { waitFor } from '@tp/test/harness/wait';
import { TaskCancelledError } from 'cockatiel';
import {
  closeRedis,
  commandTimeout,
  connectInBackground,
  createRedis,
  redisCheck,
  type RedisClient,
} from './index.js';

const clients: RedisClient[] = [];
afterAll(async () => {
  for (const c of clients) await closeRedis(c);
});

function client(url: string): RedisClient {
  const c = createRedis({ url, logger: silentLogger(), timeoutMs: 500 });
  clients.push(c);
  connectInBackground(c);
  return c;
}

describe('redis client', () => {
  it('reports ready once connected and serves commands', async () => {
    const redis = client(process.env.REDIS_URL!);
    await waitFor('redis ready', () => redis.isReady);
    await expect(redisCheck(redis).check()).resolves.toBeUndefined();
    const key = `test:redis:${Date.now()}`;
    await redis.set(key, 'v', { expiration: { type: 'PX', value: 5000 } });
    expect(await redis.get(key)).toBe('v');
  });

  it('when Redis is unreachable: not ready, optional, and commands fail at once instead of queueing', async () => {
    const redis = client('redis://127.0.0.1:1/0');
    const check = redisCheck(redis);
    expect(check.required).toBe(false);
    await expect(check.check()).rejects.toThrow('not connected');
    const started = Date.now();
    await expect(redis.get('any')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(200);
  });

  it("bounds a command Redis does not answer with commandTimeout; node-redis's own timeout ends once it is written", async () => {
    const relay = await redisRelay(process.env.REDIS_URL!);
    const redis = client(relay.url);
    try {
      await waitFor('redis ready', () => redis.isReady);
      relay.hang();
      const started = Date.now();
      await expect(commandTimeout(100).execute(() => redis.get('any'))).rejects.toBeInstanceOf(
        TaskCancelledError,
      );
      expect(Date.now() - started).toBeLessThan(1000);
      // The library's command timeout leaves the written command waiting for its reply: the reason
      // createRedis turns it off and callers bound commands with commandTimeout.
      const own = redis.withCommandOptions({ timeout: 100 }).get('any');
      own.catch(() => undefined);
      const settled = await Promise.race([
        own.then(
          () => 'answered',
          () => 'rejected',
        ),
        new Promise((resolve) => setTimeout(resolve, 500, 'pending')),
      ]);
      expect(settled).toBe('pending');
    } finally {
      redis.destroy();
      await relay.close();
    }
  });
});
