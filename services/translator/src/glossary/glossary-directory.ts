import { glossaryEntries, glossaryVersions, type Orm } from '@tp/db';
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
  /** For `auto` requests: a number that changes whenever any glossary into `target` changes (0: none). */
  targetVersion(target: string): Promise<number>;
  /** The pairs of the stored glossaries with this id or name (as of at most `refreshMs` ago). */
  named(idOrName: string): Promise<{ source: string; target: string }[]>;
}

const NONE: PairGlossary = { version: 0 };
/** The part of `refreshMs` after which a request starts the next read without waiting for it. */
const READ_AHEAD = 0.75;

/**
 * Reads which glossaries exist and their versions from Postgres, at most once per `refreshMs` (one
 * small query over a table of a few rows a pair), and a glossary's entries only when its version is new
 * to this process. Why not a Redis key bumped on edit: this costs one query a second per translator
 * instead of a Redis round trip per request, and needs nothing from the gateway (docs/decisions.md).
 * The table is read ahead: a request in the last quarter of `refreshMs` starts the read without
 * waiting for it, so under steady traffic no request waits for Postgres; only a request finding the
 * table older than `refreshMs` (the first after a quiet spell) waits, as the bound says.
 */
export class GlossaryDirectory implements GlossaryLookup {
  private versions = new Map<string, { id: string; name: string; version: number }>();
  private loaded = new Map<string, PairGlossary>();
  private checkedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly refreshMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async forPair(source: string, target: string): Promise<PairGlossary> {
    await this.fresh();
    const pair = `${source}\u0000${target}`;
    const current = this.versions.get(pair);
    if (!current) return NONE;
    const held = this.loaded.get(pair);
    if (held?.version === current.version) return held;
    const loaded = await this.load(current.id, source, target);
    if (loaded) this.loaded.set(pair, loaded);
    return loaded ?? NONE;
  }

  async targetVersion(target: string): Promise<number> {
    await this.fresh();
    let sum = 0;
    for (const [pair, { version }] of this.versions) if (pair.endsWith(`\u0000${target}`)) sum += version;
    return sum;
  }

  async named(idOrName: string): Promise<{ source: string; target: string }[]> {
    await this.fresh();
    return [...this.versions]
      .filter(([, { id, name }]) => id === idOrName || name === idOrName)
      .map(([pair]) => {
        const [source = '', target = ''] = pair.split('\u0000');
        return { source, target };
      });
  }

  private async fresh(): Promise<void> {
    const age = this.now() - this.checkedAt;
    if (age < this.refreshMs * READ_AHEAD) return;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    // Still within the bound: answered from the table as it is; a failed read is tried again.
    if (age < this.refreshMs) return void this.refreshing.catch(() => undefined);
    await this.refreshing;
  }

  private async refresh(): Promise<void> {
    const rows = await glossaryVersions(this.orm.em);
    this.versions = new Map(
      rows.map((row) => [
        `${row.source_lang}\u0000${row.target_lang}`,
        { id: row.id, name: row.name, version: Number(row.version) },
      ]),
    );
    for (const pair of this.loaded.keys()) if (!this.versions.has(pair)) this.loaded.delete(pair);
    this.checkedAt = this.now();
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
