import { contentReadCacheKey } from '@tp/pipeline';
import { commandTimeout, type RedisClient } from '@tp/redis';
import { Coalescer, perRegistry, type ItemOutcome, type Logger } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

/** Longest an invalidation waits for Redis; the entry's TTL bounds staleness after a miss. */
const redisBound = commandTimeout(500);
/** Failures are logged at most this often (with how many there were), not once per message. */
const LOG_EVERY_MS = 30_000;

const failureCounter = perRegistry(
  (registry): Counter<'component'> =>
    new Counter({
      name: 'read_cache_invalidation_failures_total',
      help: 'Read-cache deletions skipped or failed because Redis was unavailable (entries expire by TTL)',
      labelNames: ['component'] as const,
      registers: [registry],
    }),
);

export interface ReadCacheInvalidatorOptions {
  readonly redis: RedisClient | undefined;
  readonly keyPrefix: string;
  readonly logger: Logger;
  /** Names the caller in logs and metrics (planner, projection). */
  readonly component: string;
  readonly metrics?: Registry;
}

/**
 * Deletes the cached merged views of entities (docs/pipeline.md, "Read cache") after their stored
 * content changed. Redis is optional: when it is down or absent the deletion is skipped, logged and
 * counted, and never fails the message. Concurrent deletions go to Redis as one DEL.
 */
export class ReadCacheInvalidator {
  private readonly failures?: Counter<'component'>;
  private readonly deletions: Coalescer<string, undefined>;
  private failedSinceLog = 0;
  private lastLog = 0;

  constructor(private readonly options: ReadCacheInvalidatorOptions) {
    if (options.metrics) this.failures = failureCounter(options.metrics);
    this.deletions = new Coalescer((keys) => this.deleteKeys(keys), { maxBatch: 500, maxInFlight: 1 });
  }

  /** Resolves once the key is deleted, or the deletion was given up; never rejects. */
  async invalidate(entityType: string, entityId: string): Promise<void> {
    const { redis, keyPrefix } = this.options;
    if (!redis?.isReady) {
      this.failed(1, redis ? new Error('redis not connected') : undefined);
      return;
    }
    await this.deletions.submit(contentReadCacheKey(keyPrefix, entityType, entityId));
  }

  private async deleteKeys(keys: readonly string[]): Promise<ItemOutcome<undefined>[]> {
    const done = keys.map(() => ({ ok: true as const, value: undefined }));
    const { redis } = this.options;
    if (!redis?.isReady) {
      this.failed(keys.length, new Error('redis not connected'));
      return done;
    }
    try {
      await redisBound.execute(() => redis.del([...new Set(keys)]));
    } catch (err) {
      this.failed(keys.length, err);
    }
    return done;
  }

  /** `err` undefined: Redis is not configured for this process, which is not worth a log line. */
  private failed(count: number, err: unknown): void {
    this.failures?.inc({ component: this.options.component }, count);
    if (err === undefined) return;
    this.failedSinceLog += count;
    const now = Date.now();
    if (now - this.lastLog < LOG_EVERY_MS) return;
    this.options.logger.warn(
      { err: (err as Error).message, skipped: this.failedSinceLog },
      'read cache not invalidated (Redis unavailable); entries expire by their TTL',
    );
    this.lastLog = now;
    this.failedSinceLog = 0;
  }
}
