import { bounded, type RedisClient } from '@tp/redis';
import { LRUCache } from 'lru-cache';

export interface WindowLimiterOptions {
  /** Requests allowed per key and window. */
  readonly points: number;
  readonly windowSeconds: number;
  /** Redis key prefix, e.g. `tp:rl:ip:`. */
  readonly keyPrefix: string;
  /** How often counts are sent to Redis and the totals of other replicas read back. */
  readonly syncMs: number;
  /** Longest wait for Redis; a slower sync is retried at the next one. */
  readonly timeoutMs: number;
  /**
   * Most keys counted at once in one window (least recently used first out). A key pushed out starts
   * again at the count Redis has for it; what it had not sent yet is still sent.
   */
  readonly maxKeys: number;
}

export interface Decision {
  readonly allowed: boolean;
  /** Requests left in this window (0 when refused). */
  readonly remaining: number;
  /** Milliseconds until the window ends. */
  readonly resetMs: number;
}

interface Count {
  /** The total of every replica as Redis last reported it (this replica's sent counts included). */
  global: number;
  /** Counted here and not sent yet. */
  pending: number;
}

/**
 * Fixed-window counters shared by every gateway replica through Redis, decided without a Redis call
 * per request (the design of Limitador's cached Redis storage and Kong's `sync_rate`): each replica
 * counts in memory and, every `syncMs`, adds its new counts to Redis with INCRBY and reads back the
 * total. A request is refused when the last known total plus what this replica counted since reaches
 * the limit.
 *
 * Within one replica the limit is exact. Across replicas a client may get through what the other
 * replicas admitted during one sync interval before it is seen. When Redis is down or slow, counts
 * stay in memory (the limit holds per replica) and are sent once Redis answers again, so none are lost
 * and no request waits for Redis.
 */
export class WindowLimiter {
  private readonly windowMs: number;
  private window = -1;
  private counts: LRUCache<string, Count>;
  /** Counts pushed out of `counts` before they were sent: sent at the next sync. */
  private evicted: [string, Count][] = [];
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient | undefined,
    private readonly options: WindowLimiterOptions,
  ) {
    this.windowMs = options.windowSeconds * 1000;
    this.counts = this.newCounts();
  }

  /** Keys counted in memory now (bounded by maxKeys). */
  get size(): number {
    return this.counts.size;
  }

  /** True when nothing was counted in this window: no key can have reached the limit. */
  get idle(): boolean {
    this.rollOver(Date.now());
    return this.counts.size === 0;
  }

  /** Whether `key` has reached the limit in this window, without counting anything. */
  reached(key: string, now = Date.now()): boolean {
    this.rollOver(now);
    const count = this.counts.get(key);
    return count !== undefined && count.global + count.pending >= this.options.points;
  }

  private newCounts(): LRUCache<string, Count> {
    return new LRUCache<string, Count>({
      max: this.options.maxKeys,
      dispose: (count, key, reason) => {
        if (reason === 'evict' && count.pending > 0) this.evicted.push([key, count]);
      },
    });
  }

  /** Counts one request for `key` unless the limit is reached. Synchronous: no I/O. */
  consume(key: string, now = Date.now()): Decision {
    this.rollOver(now);
    const resetMs = (this.window + 1) * this.windowMs - now;
    let count = this.counts.get(key);
    if (!count) {
      count = { global: 0, pending: 0 };
      this.counts.set(key, count);
    }
    const used = count.global + count.pending;
    if (used >= this.options.points) return { allowed: false, remaining: 0, resetMs };
    count.pending += 1;
    this.ensureTimer();
    return { allowed: true, remaining: this.options.points - used - 1, resetMs };
  }

  /**
   * Sends pending counts of the current window to Redis and reads back the totals. Runs on a timer
   * while there is something to send; tests and shutdown call it directly.
   */
  sync(): Promise<void> {
    this.syncing ??= this.send().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /** Stops the timer after sending what is pending (best effort). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  private async send(): Promise<void> {
    const redis = this.redis;
    if (!redis?.isReady) return;
    const window = this.window;
    const batch = [...this.counts.entries(), ...this.evicted.splice(0)].filter(
      ([, count]) => count.pending > 0,
    );
    if (batch.length === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const ttlSeconds = this.options.windowSeconds + 1;
    await Promise.all(
      batch.map(async ([key, count]) => {
        // Still counted as pending until Redis answers: a request that arrives meanwhile must not
        // see the count without it (it was let past the limit when pending was zeroed first).
        const amount = count.pending;
        const redisKey = `${this.options.keyPrefix}${window}:${key}`;
        try {
          const [total] = await bounded(
            redis.multi().incrBy(redisKey, amount).expire(redisKey, ttlSeconds).exec(),
            this.options.timeoutMs,
          );
          if (this.window === window) {
            count.pending -= amount;
            count.global = Math.max(count.global, Number(total));
          }
        } catch {
          // Not sent (Redis down or slow): it stays pending for the next sync. A command that did
          // reach Redis but answered late is counted twice, which errs on the side of the limit.
        }
      }),
    );
  }

  private rollOver(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    this.window = window;
    this.counts = this.newCounts();
    this.evicted = [];
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.options.syncMs);
    this.timer.unref();
  }
}
