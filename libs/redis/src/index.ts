import type { DependencyCheck, Logger } from '@tp/runtime';
import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createRedis>;

export interface RedisOptions {
  readonly url: string;
  readonly logger: Logger;
  /** Connect timeout and the cap of the reconnect backoff, in ms. */
  readonly timeoutMs?: number;
}

/**
 * A Redis client for caches and counters, which are optional: commands fail at once while Redis is
 * down (no offline queue) so callers fall back instead of waiting, and the client reconnects in the
 * background with capped backoff. Errors are logged once per outage, not once per retry.
 */
export function createRedis({ url, logger, timeoutMs = 2000 }: RedisOptions) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    // node-redis gives every command its own AbortSignal.timeout, which fires (and allocates) even
    // after the reply: measurable garbage at thousands of commands a second. Callers that must bound
    // a command do it themselves (see HotCache).
    commandOptions: { timeout: 0 },
    socket: {
      connectTimeout: timeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 6), timeoutMs),
    },
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: err.message }, 'redis unavailable; continuing without it and reconnecting');
  });
  client.on('ready', () => {
    if (down) logger.info('redis reconnected');
    down = false;
  });
  return client;
}

/** Starts connecting without waiting: the process serves (degraded) while Redis is unreachable. */
export function connectInBackground(client: RedisClient): void {
  client.connect().catch(() => {
    // reported by the 'error' listener; the reconnect strategy keeps trying
  });
}

export function redisCheck(client: RedisClient, required = false): DependencyCheck {
  return {
    name: 'redis',
    required,
    async check() {
      if (!client.isReady) throw new Error('not connected');
      await client.ping();
    },
  };
}

export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.isOpen) await client.close();
}

/**
 * Bounds one Redis command (the client has no per-command timeout, see createRedis): rejects after
 * `ms` with a plain timer that is cleared on completion, cheap enough for every cache access.
 */
export function bounded<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
    command.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
