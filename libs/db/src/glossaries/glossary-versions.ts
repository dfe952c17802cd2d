import type { Orm } from '../orm.js';
import { glossaryVersions } from './glossary-tables.js';

/** A stored glossary as the hot-cache key knows it: which one, and which write of it. */
export interface GlossaryIdentity {
  readonly id: string;
  readonly name: string;
  /** Set on every write from a clock that never repeats across glossaries (nextGlossaryVersion). */
  readonly version: number;
}

/** The part of `refreshMs` after which a request starts the next read without waiting for it. */
const READ_AHEAD = 0.75;

/**
 * Which glossary each language pair has and its version, read from Postgres at most once per
 * `refreshMs` (one small query over a row a glossary). The translator and the gateway both build the
 * hot-cache key from it, so both name the same entry. The table is read ahead: a request in the last
 * quarter of `refreshMs` starts the read without waiting for it, so under steady traffic no request
 * waits for Postgres; only a request finding the table older than `refreshMs` (the first after a
 * quiet spell) waits, as the bound says.
 */
export class GlossaryVersions {
  private pairs = new Map<string, GlossaryIdentity>();
  private checkedAt = Number.NEGATIVE_INFINITY;
  private expiredAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly refreshMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The pair's glossary, or undefined when it has none. */
  async ofPair(source: string, target: string): Promise<GlossaryIdentity | undefined> {
    await this.fresh();
    return this.pairs.get(pairKey(source, target));
  }

  /**
   * The glossary version of a hot-cache key (0: none): the pair's, or for an `auto` source a number
   * that changes whenever any glossary into `target` changes (the text's language is not known yet).
   */
  cacheVersion(source: string, target: string): Promise<number> {
    // Asked on every translation: one promise when the table is fresh, no chain of awaits.
    const waiting = this.fresh();
    if (!waiting) return Promise.resolve(this.versionOf(source, target));
    return waiting.then(() => this.versionOf(source, target));
  }

  private versionOf(source: string, target: string): number {
    if (source !== 'auto') return this.pairs.get(pairKey(source, target))?.version ?? 0;
    let sum = 0;
    for (const [pair, { version }] of this.pairs) if (pair.endsWith(`\u0000${target}`)) sum += version;
    return sum;
  }

  /** The pairs of the stored glossaries with this id or name. */
  async named(idOrName: string): Promise<{ source: string; target: string }[]> {
    await this.fresh();
    return [...this.pairs]
      .filter(([, { id, name }]) => id === idOrName || name === idOrName)
      .map(([pair]) => {
        const [source = '', target = ''] = pair.split('\u0000');
        return { source, target };
      });
  }

  /**
   * The table is out of date (this process wrote a glossary): the next request waits for a read
   * begun after now.
   */
  expire(): void {
    this.expiredAt = this.now();
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** Undefined when the table may be answered as it is; otherwise the wait for a fresh one. */
  private fresh(): Promise<void> | undefined {
    if (this.now() - this.checkedAt < this.refreshMs * READ_AHEAD) return undefined;
    this.read();
    // Still within the bound: answered from the table as it is; a failed read is tried again.
    if (this.now() - this.checkedAt < this.refreshMs) return void this.refreshing?.catch(() => undefined);
    return this.waitFresh();
  }

  /** A read begun before expire() leaves the table expired: waits for the next one. */
  private async waitFresh(): Promise<void> {
    while (this.now() - this.checkedAt >= this.refreshMs) await this.read();
  }

  /** The read in flight, or a new one. */
  private read(): Promise<void> {
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(): Promise<void> {
    const readAt = this.now();
    const rows = await glossaryVersions(this.orm.em);
    this.pairs = new Map(
      rows.map((row) => [
        pairKey(row.source_lang, row.target_lang),
        { id: row.id, name: row.name, version: Number(row.version) },
      ]),
    );
    if (readAt >= this.expiredAt) this.checkedAt = readAt;
  }
}

const pairKey = (source: string, target: string) => `${source}\u0000${target}`;
