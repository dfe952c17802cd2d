import type { Logger } from '@tp/runtime';

import type { ContentStore } from './content.store.js';
import type { CachedContent, ContentReadCache } from './content-read-cache.js';
import { mergeContent, type TranslatedField } from './merge-content.js';
import type { TranslationRequests } from './translation-requests.js';

/** Hash field of the read cache for views asked without x-language; never a language code. */
export const SOURCE = 'source';

export interface ReadRequest {
  readonly type: string;
  readonly ids: readonly string[];
  /** Codes to look for, best first (languageChain); undefined asks for the source text. */
  readonly chain: readonly string[] | undefined;
  readonly correlationId: string;
  /**
   * Set for a key scoped to modules: entities of other modules are answered as if absent, and none of
   * their fields is requested for translation on this key's behalf.
   */
  readonly modules?: readonly string[];
  /** The request's logger, made only if something is logged. */
  readonly log: () => Logger;
}

export interface ReadResult {
  /** Views of the entities found, in the order asked. */
  readonly found: readonly CachedContent[];
  /** Ids without source content. */
  readonly missing: readonly string[];
}

/**
 * The query side: merged views from the read cache, or from Postgres (one query for any number of
 * entities) and then cached; untranslated fields of what was read from Postgres are requested. Cache
 * hits request nothing: the read that filled the entry did, and the throttle window outlasts it.
 */
export class ReadContent {
  constructor(
    private readonly store: ContentStore,
    private readonly cache: ContentReadCache,
    private readonly requests: TranslationRequests,
  ) {}

  async read({ type, ids, chain, correlationId, modules, log }: ReadRequest): Promise<ReadResult> {
    const asked = chain?.join(',') ?? SOURCE;
    const visible = (module: string) => modules === undefined || modules.includes(module);
    const cached = await this.cache.read(type, ids, asked);
    const views = new Map<string, CachedContent>();
    ids.forEach((id, i) => {
      const hit = cached[i];
      if (hit && visible(hit.view.module)) views.set(id, hit);
    });
    const misses = ids.filter((id) => !views.has(id));
    if (misses.length > 0) {
      const stored = await this.store.fields(type, misses, chain ?? []);
      const fresh: CachedContent[] = [];
      const wanted: TranslatedField[] = [];
      for (const [id, fields] of stored) {
        const merged = mergeContent(type, id, fields, chain);
        // Not cached either: a cache hit requests nothing, so an entry must come from a read that did.
        if (!visible(merged.view.module)) continue;
        const entry = { view: merged.view, languages: merged.languages };
        views.set(id, entry);
        fresh.push(entry);
        wanted.push(...merged.wanted);
      }
      await Promise.all([
        this.cache.store(type, asked, fresh),
        chain?.[0] === undefined
          ? undefined
          : this.requests.request(type, wanted, chain[0], correlationId).catch((err: unknown) => {
              // The reader has its answer; a later read asks again.
              log().warn({ err }, 'could not request translations of untranslated fields');
            }),
      ]);
    }
    return {
      found: ids.flatMap((id) => views.get(id) ?? []),
      missing: ids.filter((id) => !views.has(id)),
    };
  }
}
