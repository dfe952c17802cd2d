import { GlossaryVersions, glossaryEntries, type Orm } from '@tp/db';
import { TermScanner } from '@tp/translation';

import type { ChainGlossary } from '../chain/index.js';

/** The glossary of a pair as the translator applies it, or none (version 0). */
export interface PairGlossary {
  readonly version: number;
  readonly glossary?: ChainGlossary;
}

export interface GlossaryLookup {
  /** The pair's glossary as of at most `refreshMs` ago. */
  forPair(source: string, target: string): Promise<PairGlossary>;
  /** The glossary version of a hot-cache key (GlossaryVersions.cacheVersion); 0: none. */
  cacheVersion(source: string, target: string): Promise<number>;
  /** The pairs of the stored glossaries with this id or name (as of at most `refreshMs` ago). */
  named(idOrName: string): Promise<{ source: string; target: string }[]>;
}

const NONE: PairGlossary = { version: 0 };

/**
 * The glossaries as the translator applies them: which pair has which version (GlossaryVersions, at
 * most `refreshMs` old), and a glossary's entries, read only when its version is new to this process.
 * Why not a Redis key bumped on edit: this costs one query a second per process instead of a Redis
 * round trip per request, and needs nothing from the writer (docs/decisions.md).
 */
export class GlossaryDirectory implements GlossaryLookup {
  private readonly versions: GlossaryVersions;
  private loaded = new Map<string, PairGlossary>();

  constructor(
    private readonly orm: Orm,
    refreshMs = 1000,
    now: () => number = () => performance.now(),
  ) {
    this.versions = new GlossaryVersions(orm, refreshMs, now);
  }

  async forPair(source: string, target: string): Promise<PairGlossary> {
    const current = await this.versions.ofPair(source, target);
    const pair = `${source}\u0000${target}`;
    if (!current) {
      this.loaded.delete(pair);
      return NONE;
    }
    const held = this.loaded.get(pair);
    if (held?.version === current.version) return held;
    const loaded = await this.load(current.id, source, target);
    if (loaded) this.loaded.set(pair, loaded);
    return loaded ?? NONE;
  }

  cacheVersion(source: string, target: string): Promise<number> {
    return this.versions.cacheVersion(source, target);
  }

  named(idOrName: string): Promise<{ source: string; target: string }[]> {
    return this.versions.named(idOrName);
  }

  private async load(id: string, source: string, target: string): Promise<PairGlossary | undefined> {
    const row = await glossaryEntries(this.orm.em, id);
    if (!row) return undefined;
    const { version } = row;
    const entries = row.entries.map(({ source: s, target: t }) => ({ source: s, target: t }));
    return {
      version,
      glossary: {
        key: `${id}:${version}`,
        source,
        target,
        entries,
        scanner: new TermScanner(entries.map((entry) => entry.source)),
      },
    };
  }
}
