import type { Orm } from '@tp/db';
import { expireFreeTextTranslations } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';

import { periodicTask } from '../shared/periodic-task.js';

/** Rows deleted per statement, so one run never holds a long lock or a large transaction. */
const BATCH = 1000;

export interface ExpireTextOptions {
  readonly orm: Orm;
  readonly logger: Logger;
  /** Rows older than this (by their last update) go; 0 keeps them for ever. */
  readonly retentionDays: number;
  readonly intervalMs: number;
}

/**
 * Deletes stored translations of anonymous free text older than the retention: they were kept only so
 * the store learns them (issue 16), and anyone can write them. Content translations of business
 * entities are never touched.
 */
export class TextTranslationExpiry {
  constructor(private readonly options: ExpireTextOptions) {}

  /** Deletes expired rows in batches; returns how many went. */
  async runOnce(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.options.retentionDays * 86_400_000);
    const em = this.options.orm.em.fork();
    let deleted = 0;
    for (;;) {
      const count = await expireFreeTextTranslations(em, cutoff, BATCH);
      deleted += count;
      if (count < BATCH) return deleted;
    }
  }

  task(): BackgroundTask {
    if (this.options.retentionDays === 0)
      return { start: async () => undefined, stop: async () => undefined };
    return periodicTask(this.options.intervalMs, () =>
      this.runOnce()
        .then((deleted) => {
          if (deleted > 0) this.options.logger.info({ deleted }, 'expired stored free-text translations');
        })
        .catch((err: unknown) =>
          this.options.logger.warn({ err }, 'could not expire free-text translations'),
        ),
    );
  }
}
