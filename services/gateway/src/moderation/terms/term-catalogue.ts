import { setTimeout as sleep } from 'node:timers/promises';

import { AppError } from '@tp/runtime';

import { TermMatcher, type TermEntry } from '../matching/term-matcher.js';
import type { ModerationTermView, TermSource } from './moderation-term.store.js';

export interface TermCatalogueOptions {
  /** How often the revision of the custom terms is checked, at most; default 1000 ms. */
  readonly refreshIntervalMs?: number;
  /** How long a call waits for a due check before it answers with the terms it has; default 50 ms. */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
  /** Told when a check fails (the last terms are served meanwhile, if there are any). */
  readonly onError?: (err: unknown) => void;
}

/**
 * The current matcher: built-in list terms plus the custom terms in Postgres. Every call may check the
 * revision of the custom terms (one cheap query, at most once per refreshIntervalMs per process) and
 * rebuilds the matcher when it changed, so a change made through any gateway applies everywhere
 * within about a second. A check that fails keeps the last terms (keyword moderation stays up while
 * Postgres is down); only the very first load must succeed.
 */
export class TermCatalogue {
  private matcher: TermMatcher | undefined;
  private revision: string | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private readonly refreshIntervalMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(
    private readonly source: TermSource,
    private readonly listEntries: readonly TermEntry[],
    private readonly options: TermCatalogueOptions = {},
  ) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 1000;
    this.maxWaitMs = options.maxWaitMs ?? 50;
    this.now = options.now ?? Date.now;
  }

  /** The matcher to use now. Throws DEPENDENCY_UNAVAILABLE only when the terms were never loaded. */
  async current(): Promise<TermMatcher> {
    if (this.matcher === undefined) {
      await this.check();
      return this.loaded();
    }
    if (this.now() - this.checkedAt >= this.refreshIntervalMs) {
      // A slow database must not hold the answer: after maxWaitMs, answer with the terms at hand.
      await Promise.race([this.check(), sleep(this.maxWaitMs, undefined, { ref: false })]);
    }
    return this.loaded();
  }

  /** After a change made by this process: the next call sees it without waiting for the interval. */
  async reload(): Promise<void> {
    // A check already under way may have read the terms before the change; run one after it.
    await this.pending;
    this.checkedAt = Number.NEGATIVE_INFINITY;
    await this.check();
  }

  private loaded(): TermMatcher {
    if (this.matcher === undefined) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot load the custom moderation terms; retry later');
    }
    return this.matcher;
  }

  /** One check at a time: concurrent callers share it. Never rejects. */
  private check(): Promise<void> {
    this.pending ??= this.refresh().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async refresh(): Promise<void> {
    try {
      // The revision is read before the terms: a change between the two reads makes the next check
      // rebuild once more, never keeps a stale list.
      const revision = await this.source.revision();
      if (revision !== this.revision || this.matcher === undefined) {
        const custom = await this.source.list();
        this.matcher = TermMatcher.build([...custom.map(customEntry), ...this.listEntries]);
        this.revision = revision;
      }
    } catch (err) {
      this.options.onError?.(err);
    } finally {
      // Also after a failure, so a database outage costs one query per interval, not one per call.
      this.checkedAt = this.now();
    }
  }
}

function customEntry(term: ModerationTermView): TermEntry {
  return { term: term.term, kind: term.kind, language: term.language, source: 'custom' };
}
