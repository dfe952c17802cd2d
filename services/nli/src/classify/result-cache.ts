import { hash } from 'node:crypto';

import { commandTimeout, type RedisClient } from '@tp/redis';

/** A cache command slower than this is a miss: a stuck Redis must not hold classifications. */
const redisBound = commandTimeout(250);

import type { Ranking } from './scoring.js';

/** Everything a classification depends on; any change gives another key. */
export interface CacheKeyInput {
  /** Model id and fingerprint. */
  readonly model: string;
  readonly template: string;
  /** In request order: single-label scores depend on the whole set and the ties on the order. */
  readonly labels: readonly string[];
  readonly multiLabel: boolean;
  readonly text: string;
}

/** `<prefix>nli:<first 32 hex of sha256>`, as the translation hot cache shortens its keys. */
export function resultCacheKey(input: CacheKeyInput, prefix: string): string {
  const material = JSON.stringify([input.model, input.template, input.labels, input.multiLabel, input.text]);
  return `${prefix}nli:${hash('sha256', material, 'hex').slice(0, 32)}`;
}

/**
 * Classification results in Redis. Redis is optional: when it is down, or answers with something
 * unreadable, the lookup is a miss and the model computes; a failed write is ignored.
 */
export class ResultCache {
  private counts = { hits: 0, misses: 0 };

  constructor(
    private readonly redis: RedisClient | undefined,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  /** Lookups answered from Redis, and not, since the process started. */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { ...this.counts };
  }

  async read(input: CacheKeyInput): Promise<Ranking | undefined> {
    const found = await this.get(resultCacheKey(input, this.prefix));
    const ranking = found === undefined ? undefined : parseRanking(found, input.labels);
    if (ranking) this.counts.hits++;
    else this.counts.misses++;
    return ranking;
  }

  async store(input: CacheKeyInput, ranking: Ranking): Promise<void> {
    if (!this.redis?.isReady) return;
    try {
      const redis = this.redis;
      await redisBound.execute(() =>
        redis.set(resultCacheKey(input, this.prefix), JSON.stringify(ranking), {
          expiration: { type: 'EX', value: this.ttlSeconds },
        }),
      );
    } catch {
      // A cache that cannot be written only costs the next caller a model run.
    }
  }

  private async get(key: string): Promise<string | undefined> {
    if (!this.redis?.isReady) return undefined;
    try {
      const redis = this.redis;
      return (await redisBound.execute(() => redis.get(key))) ?? undefined;
    } catch {
      return undefined;
    }
  }
}

/** A stored ranking, checked to hold exactly the requested labels with numeric scores. */
function parseRanking(raw: string, labels: readonly string[]): Ranking | undefined {
  try {
    const value = JSON.parse(raw) as Partial<Ranking>;
    const ok =
      Array.isArray(value.labels) &&
      Array.isArray(value.scores) &&
      value.labels.length === labels.length &&
      value.scores.length === labels.length &&
      value.scores.every((score) => typeof score === 'number' && Number.isFinite(score)) &&
      [...value.labels].sort().join('\0') === [...labels].sort().join('\0');
    return ok ? { labels: value.labels as string[], scores: value.scores as number[] } : undefined;
  } catch {
    return undefined;
  }
}
