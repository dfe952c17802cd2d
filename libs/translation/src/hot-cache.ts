import { hash } from 'node:crypto';

import { commandTimeout, type RedisClient } from '@tp/redis';

/** The spec's lifetime of a hot cache entry. */
export const HOT_CACHE_TTL_SECONDS = 24 * 60 * 60;

export interface CachedTranslation {
  readonly translatedText: string;
  /** Source language actually used (detected when the request said `auto`). */
  readonly source: string;
  readonly engine: string;
  readonly cachedAt: string;
  /**
   * A weaker engine's result (issue #19): a stronger one that serves the pair had failed. Kept so a hit
   * says so too; the translator reads past such an entry while a stronger engine is healthy.
   */
  readonly fallback: boolean;
}

export interface CacheKeyInput {
  readonly source: string;
  readonly target: string;
  readonly text: string;
  /**
   * The version of the pair's glossary applied (0 or absent: none). Part of the key, so an edited
   * glossary is never answered from translations made with the one before.
   */
  readonly glossaryVersion?: number;
  /** How the text is written (`html`, `markdown`); absent or `text`: plain text, the spec's key. */
  readonly format?: string;
  /** The formality asked (absent: the engine's default). */
  readonly formality?: string;
  /** The context given (absent: none). */
  readonly context?: string;
}

/**
 * The spec's key: the first 32 hex characters of SHA-256 over source, target and text. The parts are
 * joined with U+0000, which no language code contains, so ("a", "b|c") and ("a|b", "c") never collide.
 * With a glossary, `U+0000 g<version>` follows the text. HTML or Markdown puts `f<format> U+0000`
 * first (the same characters as markup or as plain text are two translations): before the text, so
 * no text can make one key look like the other, and never a language code, so never a plain key.
 * A formality or a context puts `c<formality>:<SHA-256 of the context> U+0000` first the same way.
 */
export function hotCacheHash(input: CacheKeyInput): string {
  const { source, target, text, glossaryVersion, format } = input;
  // Without a glossary the key is the spec's, as before glossaries existed.
  const glossary = glossaryVersion ? `\u0000g${glossaryVersion}` : '';
  const written = format && format !== 'text' ? `f${format}\u0000` : '';
  const key = `${controlsPart(input)}${written}${source}\u0000${target}\u0000${text}${glossary}`;
  return hash('sha256', key, 'hex').slice(0, 32);
}

/** The key's part for a formality or a context; empty without them. */
function controlsPart({ formality, context }: CacheKeyInput): string {
  if (!formality && !context) return '';
  return `c${formality ?? ''}:${context ? hash('sha256', context, 'hex') : ''}\u0000`;
}

export const hotCacheKey = (input: CacheKeyInput, prefix = 'tp:'): string =>
  `${prefix}tr:${hotCacheHash(input)}`;

/**
 * Redis hot cache of complete translations. Redis being down makes it miss (reads) or skip (writes);
 * it never fails a translation. Truncated results must not be stored (see `store`).
 */
export class HotCache {
  private readonly bound;

  constructor(
    private readonly redis: RedisClient | undefined,
    private readonly prefix = 'tp:',
    private readonly ttlSeconds = HOT_CACHE_TTL_SECONDS,
    /** A command slower than this is a miss (or a skipped write): a stuck Redis must not hold requests. */
    timeoutMs = 250,
  ) {
    this.bound = commandTimeout(timeoutMs);
  }

  /** The entry, or undefined when absent, not an entry, or Redis is down or slow. */
  async read(input: CacheKeyInput): Promise<CachedTranslation | undefined> {
    if (!this.redis?.isReady) return undefined;
    try {
      const redis = this.redis;
      const raw = await this.bound.execute(() => redis.get(hotCacheKey(input, this.prefix)));
      return raw ? parseHotCacheEntry(raw) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The entries of many texts in order, by one MGET; each as `read` answers it. */
  async readMany(inputs: readonly CacheKeyInput[]): Promise<(CachedTranslation | undefined)[]> {
    const none = () => inputs.map((): CachedTranslation | undefined => undefined);
    if (inputs.length === 0 || !this.redis?.isReady) return none();
    try {
      const redis = this.redis;
      const keys = inputs.map((input) => hotCacheKey(input, this.prefix));
      const raws = await this.bound.execute(() => redis.mGet(keys));
      return raws.map((raw) => (raw ? parseHotCacheEntry(raw) : undefined));
    } catch {
      return none();
    }
  }

  /** Stores a complete translation; returns false when it was not stored (truncated, or Redis down). */
  store(input: CacheKeyInput, entry: StoredEntry): Promise<boolean> {
    return this.storeMany([{ input, entry }]);
  }

  /**
   * Stores complete translations in one round trip (SETs sent as one pipeline), the truncated left
   * out; returns false when none was stored (all truncated, or Redis down or slow).
   */
  async storeMany(entries: readonly { input: CacheKeyInput; entry: StoredEntry }[]): Promise<boolean> {
    const complete = entries.filter(({ entry }) => !entry.truncated);
    if (complete.length === 0 || !this.redis?.isReady) return false;
    try {
      const redis = this.redis;
      await this.bound.execute(() => {
        const pipeline = redis.multi();
        for (const { input, entry } of complete) {
          const value = JSON.stringify(cachedValue(entry));
          pipeline.set(hotCacheKey(input, this.prefix), value, { EX: this.ttlSeconds });
        }
        return pipeline.execAsPipeline();
      });
      return true;
    } catch {
      return false;
    }
  }
}

/** What `store` takes: a translation and whether it is complete (a truncated one is never stored). */
export type StoredEntry = Omit<CachedTranslation, 'fallback'> & {
  readonly truncated: boolean;
  readonly fallback?: boolean;
};

/** The stored value of an entry: the entry's fields only. */
const cachedValue = (entry: StoredEntry): CachedTranslation => ({
  translatedText: entry.translatedText,
  source: entry.source,
  engine: entry.engine,
  cachedAt: entry.cachedAt,
  fallback: entry.fallback ?? false,
});

/** A stored entry read back; undefined when it is not one (malformed JSON, fields missing). */
function parseHotCacheEntry(raw: string): CachedTranslation | undefined {
  try {
    const value = JSON.parse(raw) as Partial<CachedTranslation>;
    if (typeof value.translatedText !== 'string' || typeof value.source !== 'string') return undefined;
    return {
      translatedText: value.translatedText,
      source: value.source,
      engine: typeof value.engine === 'string' ? value.engine : 'unknown',
      cachedAt: typeof value.cachedAt === 'string' ? value.cachedAt : '',
      // Entries written before the flag existed were results of whatever engine answered first.
      fallback: value.fallback === true,
    };
  } catch {
    return undefined;
  }
}
