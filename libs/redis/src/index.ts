import type { DependencyCheck, Logger } from '@tp/runtime';
import { timeout, TimeoutStrategy, type TimeoutPolicy } from 'cockatiel';
import { createClient } from 'redis';
import type { EventEmitter } from 'node:events';

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
  return reportingOutages(createClient({ url, ...optionalRedis(timeoutMs) }), logger);
}

export type CachingRedisClient = ReturnType<typeof createCachingRedis>;

/**
 * A client like createRedis's whose reads of cacheable commands (GET, HGET...) are kept in this
 * process, at most `maxEntries` (least recently used go first), until Redis says the key changed,
 * expired or was deleted (RESP3 client tracking, node-redis's clientSideCache). A lost connection
 * empties it. Reads inside MULTI or a pipeline are not kept: send them one command each.
 */
export function createCachingRedis({
  url,
  logger,
  timeoutMs = 2000,
  maxEntries,
}: RedisOptions & { readonly maxEntries: number }) {
  const client = createClient({
    url,
    RESP: 3,
    clientSideCache: { maxEntries, evictPolicy: 'LRU' },
    ...optionalRedis(timeoutMs),
  });
  return reportingOutages(client, logger);
}

/** The settings of an optional Redis: no offline queue, no command timeout, capped reconnects. */
const optionalRedis = (timeoutMs: number) => ({
  disableOfflineQueue: true,
  // node-redis's command timeout ends once the command is written, which is at once without an
  // offline queue: it never bounds the wait for a reply (redis.int.test.ts). Off; callers that must
  // bound a command use `commandTimeout`.
  commandOptions: { timeout: 0 },
  socket: {
    connectTimeout: timeoutMs,
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 6), timeoutMs),
  },
});

/** Logs an outage once when it starts and once when Redis is back. */
function reportingOutages<C extends EventEmitter>(client: C, logger: Logger): C {
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

/** What connecting and closing need of a client (either kind). */
interface Connectable {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
}

/** Starts connecting without waiting: the process serves (degraded) while Redis is unreachable. */
export function connectInBackground(client: Connectable): void {
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

export async function closeRedis(client: Connectable): Promise<void> {
  if (client.isOpen) await client.close();
}

/**
 * A bound for commands a caller must not wait on for longer than `ms` (a cache read, a best-effort
 * delete): cockatiel's aggressive timeout, which rejects with its TaskCancelledError after `ms`
 * whether or not Redis answers later. Nothing is aborted (a written command cannot be taken back).
 */
export function commandTimeout(ms: number): TimeoutPolicy {
  return timeout(ms, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
}
