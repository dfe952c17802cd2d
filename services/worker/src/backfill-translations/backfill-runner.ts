import type { Orm } from '@tp/db';
import { configuredTargets, endBackfills, lockRunningBackfills, readTranslationSettings } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';
import type { Registry } from 'prom-client';

import { periodicTask } from '../shared/periodic-task.js';
import { backfillMetrics, type BackfillMetrics } from './backfill-metrics.js';
import { BACKFILL_LIMITS, stepBackfill, type StepOutput } from './backfill-step.js';

/** Running backfills one tick looks at, oldest first (the others wait for a later tick). */
const BACKFILLS_PER_TICK = 10;

export interface BackfillRunnerOptions extends StepOutput {
  readonly orm: Orm;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

/**
 * Runs the backfills (docs/pipeline.md, "Backfill"): every BACKFILL_LIMITS.tickMs, one transaction
 * locks the running backfills (another worker's runner skips them), stops those whose language left
 * the configuration, and steps the others, sharing the tick's field budget in age order.
 */
export class BackfillRunner {
  private readonly metrics?: BackfillMetrics;

  constructor(private readonly options: BackfillRunnerOptions) {
    if (options.metrics) this.metrics = backfillMetrics(options.metrics);
  }

  task(): BackgroundTask {
    return periodicTask(BACKFILL_LIMITS.tickMs, () =>
      this.tick().catch((err: unknown) => this.options.logger.warn({ err }, 'backfill tick failed')),
    );
  }

  /** One tick; resolves once its transaction is committed. */
  async tick(): Promise<void> {
    await this.options.orm.em.fork().transactional(async (em) => {
      const jobs = await lockRunningBackfills(em, BACKFILLS_PER_TICK);
      if (jobs.length === 0) return;
      const settings = await readTranslationSettings(em);
      const targets = configuredTargets(settings.targetLanguages);
      const stopped = await endBackfills(em, 'stopped', { languagesKept: targets });
      for (const job of stopped) this.options.logger.info({ backfill: job.id }, 'backfill stopped');
      // Translation switched off: the backfills wait, as the planner and the reads request nothing.
      if (!settings.enabled) return;
      let budget: number = BACKFILL_LIMITS.fieldsPerTick;
      for (const job of jobs.filter((j) => targets.includes(j.language))) {
        const outcome = await stepBackfill(em, job, budget, this.options);
        budget -= outcome.requested;
        this.metrics?.record(job.language, outcome);
        if (outcome.finished) this.options.logger.info({ backfill: job.id }, 'backfill done');
      }
    });
  }
}
