import { contentReadCacheKey } from '@tp/pipeline';
import { commandTimeout, type RedisClient } from '@tp/redis';

import type { ContentView } from './merge-content.js';

/** A merged view as cached: the view and the languages its texts are in. */
export interface CachedContent {
  readonly view: ContentView;
  readonly languages: readonly string[];
}

/**
 * Merged views in Redis: one hash per entity (`contentReadCacheKey`), one hash field per language
 * asked. The planner and the projection delete the hash when the entity changes. The hash expires
 * `ttlSeconds` after its first field was written (EXPIRE NX): refreshing the expiry on each write
 * would let a hash read in many languages live for ever, and with it a field whose invalidation was
 * missed while Redis was down. Redis down or slow is a miss, and writes are skipped.
 */
export class ContentReadCache {
  private readonly bound;

  constructor(
    private readonly redis: RedisClient | undefined,
    private readonly prefix: string,
    /** 0 turns the cache off. */
    private readonly ttlSeconds: number,
    timeoutMs = 250,
  ) {
    this.bound = commandTimeout(timeoutMs);
  }

  /**
   * The cached views of `ids` in the language `asked`, in the order of `ids`: one HGET each, sent
   * together (node-redis writes the commands of one tick at once), so a client-side cache
   * (createCachingRedis) can answer them; a pipeline would bypass it.
   */
  async read(type: string, ids: readonly string[], asked: string): Promise<(CachedContent | undefined)[]> {
    const redis = this.usable();
    if (!redis || ids.length === 0) return ids.map(() => undefined);
    try {
      const replies = await this.bound.execute(() =>
        Promise.all(ids.map((id) => redis.hGet(contentReadCacheKey(this.prefix, type, id), asked))),
      );
      return replies.map((reply) => (typeof reply === 'string' ? parseCachedContent(reply) : undefined));
    } catch {
      return ids.map(() => undefined);
    }
  }

  /** Stores merged views in the language `asked`; one round trip, failures ignored. */
  async store(type: string, asked: string, entries: readonly CachedContent[]): Promise<void> {
    const redis = this.usable();
    if (!redis || entries.length === 0) return;
    try {
      const multi = redis.multi();
      for (const entry of entries) {
        const key = contentReadCacheKey(this.prefix, type, entry.view.id);
        multi.hSet(key, asked, JSON.stringify(entry));
        multi.expire(key, this.ttlSeconds, 'NX');
      }
      await this.bound.execute(() => multi.execAsPipeline());
    } catch {
      // A cache that cannot be written is a miss next time.
    }
  }

  private usable(): RedisClient | undefined {
    return this.ttlSeconds > 0 && this.redis?.isReady ? this.redis : undefined;
  }
}

/** A cached view as stored, or undefined when it is not one (a miss). */
function parseCachedContent(raw: string): CachedContent | undefined {
  try {
    const entry = JSON.parse(raw) as Partial<CachedContent> | null;
    const view = entry?.view;
    if (!view || typeof view !== 'object' || !Array.isArray(entry.languages)) return undefined;
    if (typeof view.fields !== 'object' || !Array.isArray(view.untranslated)) return undefined;
    return entry as CachedContent;
  } catch {
    return undefined;
  }
}
