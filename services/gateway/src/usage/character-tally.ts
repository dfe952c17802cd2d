import type { Logger } from '@tp/runtime';

import type { BudgetStore, CharacterCounts } from '../keys/budgets/budget.store.js';

/** How often a gateway process writes the characters it counted in memory. */
export const USAGE_FLUSH_MS = 1000;

/**
 * Most keys with characters waiting in one process. Only valid keys get here, so the map is as large
 * as the keys in use; past it the tally is written at once (and, while Postgres is down, new keys'
 * characters are dropped and logged).
 */
const MAX_PENDING_KEYS = 10_000;

/**
 * Characters of translations that need no reservation (keys without a budget, cache hits), summed per
 * key in memory and written once a second with one upsert per key: a busy key costs one write a
 * second instead of one per request (an upsert commits in about 3 ms and serialises on the key's row;
 * docs/decisions.md, "Characters per key"). A failed write keeps the sums for the next flush; the
 * process's stop writes what is left.
 */
export class CharacterTally {
  private pending = new Map<string, CharacterCounts>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly budgets: BudgetStore,
    private readonly logger: Logger,
    private readonly flushMs = USAGE_FLUSH_MS,
  ) {}

  add(keyId: string, counts: CharacterCounts): void {
    if (counts.translated === 0 && counts.cached === 0) return;
    const before = this.pending.get(keyId);
    if (!before && this.pending.size >= MAX_PENDING_KEYS) {
      void this.flush();
      if (this.pending.size >= MAX_PENDING_KEYS) {
        this.logger.error({ keyId, counts }, 'character usage dropped: too many keys waiting');
        return;
      }
    }
    this.pending.set(keyId, sum(before, counts));
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs).unref();
  }

  /** Writes what is waiting; resolves once written or put back (never rejects). */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** For the service's tasks: nothing to start; stopping writes what is left. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const [keyId, counts] of batch) {
      try {
        await this.budgets.countCharacters(keyId, counts, null);
      } catch (err) {
        this.logger.warn({ err, keyId, counts }, 'character usage not written; retrying with the next flush');
        this.add(keyId, counts);
      }
    }
  }
}

const sum = (a: CharacterCounts | undefined, b: CharacterCounts): CharacterCounts => ({
  translated: (a?.translated ?? 0) + b.translated,
  cached: (a?.cached ?? 0) + b.cached,
});
