import type { EngineName, TranslationEngine } from '../engines/engine.js';
import type { PairCoverage } from '../engines/pair-coverage.js';

export interface PairDirectoryOptions {
  /** How old an engine's list may get before it is asked again. */
  readonly refreshMs: number;
  /** How long one engine gets to answer. */
  readonly timeoutMs: number;
  /** How soon an engine that could not answer (or whose list proved stale) is asked again. */
  readonly retryMs: number;
  readonly onError?: (engine: EngineName, error: unknown) => void;
  readonly now?: () => number;
}

/** What the directory knows about one engine, for status pages. */
export interface EnginePairsStatus {
  readonly engine: EngineName;
  /** When its list was last read; absent while it never answered. */
  readonly learnedAt?: string;
  /** Directions it serves between listed languages. */
  readonly pairs: number;
  readonly lastError?: string;
}

interface Entry {
  readonly engine: Pick<TranslationEngine, 'name' | 'languagePairs'>;
  coverage?: PairCoverage;
  learnedAt: number;
  askedAt: number;
  lastError?: string;
  asking?: Promise<void>;
}

/**
 * The language pairs each engine of the chain serves, as the engines themselves say (APy /listPairs,
 * LibreTranslate /languages, DeepL and Google language lists, the installed offline models). Read
 * at start and then whenever an engine's list is older than `refreshMs`; an engine that does not
 * answer keeps its last list, and one never read is "unknown": the chain then calls it and lets it
 * refuse by itself.
 */
export class PairDirectory {
  private readonly entries: Map<EngineName, Entry>;
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;

  constructor(
    engines: readonly Pick<TranslationEngine, 'name' | 'languagePairs'>[],
    private readonly options: PairDirectoryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.entries = new Map(engines.map((engine) => [engine.name, { engine, learnedAt: 0, askedAt: 0 }]));
  }

  /** The engine's coverage, or undefined while it is unknown. */
  coverage(engine: EngineName): PairCoverage | undefined {
    return this.entries.get(engine)?.coverage;
  }

  /** Asks every engine whose list is due (all of them with `all`), in parallel; never throws. */
  async refresh(all = false): Promise<void> {
    const now = this.now();
    const due = [...this.entries.values()].filter(
      (entry) =>
        all ||
        (now - entry.learnedAt >= this.options.refreshMs && now - entry.askedAt >= this.options.retryMs),
    );
    await Promise.all(due.map((entry) => this.ask(entry)));
  }

  /** The engine refused a pair its list offered: ask it again soon. */
  stale(engine: EngineName): void {
    const entry = this.entries.get(engine);
    if (entry) entry.learnedAt = 0;
  }

  /** Refreshes in the background; the timer does not keep the process alive. */
  start(): void {
    const tick = Math.min(this.options.refreshMs, this.options.retryMs);
    this.timer ??= setInterval(() => void this.refresh(), tick).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  status(): EnginePairsStatus[] {
    return [...this.entries.values()].map((entry) => ({
      engine: entry.engine.name,
      ...(entry.coverage ? { learnedAt: new Date(entry.learnedAt).toISOString() } : {}),
      pairs: entry.coverage?.pairs().length ?? 0,
      ...(entry.lastError ? { lastError: entry.lastError } : {}),
    }));
  }

  private ask(entry: Entry): Promise<void> {
    entry.asking ??= (async () => {
      entry.askedAt = this.now();
      try {
        entry.coverage = await entry.engine.languagePairs(AbortSignal.timeout(this.options.timeoutMs));
        entry.learnedAt = this.now();
        delete entry.lastError;
      } catch (error) {
        entry.lastError = error instanceof Error ? error.message : String(error);
        this.options.onError?.(entry.engine.name, error);
      } finally {
        entry.asking = undefined;
      }
    })();
    return entry.asking;
  }
}
