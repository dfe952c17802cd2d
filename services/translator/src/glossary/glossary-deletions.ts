import { forgetGlossaryDeletions, oldestGlossaryDeletions, type Orm } from '@tp/db';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';

import type { TranslationEngine } from '../engines/engine.js';

export interface GlossaryDeletionsOptions {
  /** How often the table is read (one small query when it is empty). */
  readonly intervalMs?: number;
  /** Rows taken a sweep, oldest first: the work of one sweep is one list at DeepL and their deletions. */
  readonly batch?: number;
  /**
   * How long a row stays after its deletion, even once nothing is left at the engine: a replica whose
   * glossary directory had not yet seen the deletion may still create the glossary for a request
   * (its directory is at most GLOSSARY_REFRESH_MS old, a creation at most 10 s); the next sweep deletes that.
   */
  readonly settleMs?: number;
}

/** An engine's `removeDeletedGlossaries`. */
type Remover = NonNullable<TranslationEngine['removeDeletedGlossaries']>;

/**
 * Deletes at the engine (DeepL) the copies of glossaries deleted in our admin API: the gateway writes
 * `glossary_deletions` in the delete's transaction; every sweep takes the oldest `batch` rows, has the
 * engine delete every version it lists under those ids, and removes the rows of which nothing is left
 * once `settleMs` has passed. A failure (no list, a deletion refused) keeps the row for the next sweep.
 * Names at DeepL other than ours (`tp <id>:<version>` with a deleted id) are never touched.
 */
export class GlossaryDeletions implements BackgroundTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private readonly intervalMs: number;
  private readonly batch: number;
  private readonly settleMs: number;

  constructor(
    private readonly orm: Orm,
    private readonly remove: Remover,
    private readonly logger: Logger,
    options: GlossaryDeletionsOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 30_000;
    this.batch = options.batch ?? 50;
    this.settleMs = options.settleMs ?? 120_000;
  }

  /** One sweep (none at once: a sweep still running is awaited); the number of rows removed. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async start(): Promise<void> {
    this.timer ??= setInterval(() => {
      this.sweep().catch((err: unknown) =>
        this.logger.warn({ err }, 'could not delete glossaries deleted in our API at the engine'),
      );
    }, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async sweepOnce(): Promise<number> {
    const em = this.orm.em.fork();
    const rows = await oldestGlossaryDeletions(em, this.settleMs, this.batch);
    if (rows.length === 0) return 0;
    const gone = await this.remove(rows.map((row) => row.glossary_id));
    const done = rows
      .filter((row) => row.settled && gone?.has(row.glossary_id))
      .map((row) => row.glossary_id);
    if (done.length === 0) return 0;
    await forgetGlossaryDeletions(em, done);
    return done.length;
  }
}
