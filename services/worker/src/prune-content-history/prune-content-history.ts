import type { Orm } from '@tp/db';
import { pruneReports, pruneTombstones } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

import { periodicTask } from '../shared/periodic-task.js';

/** What is pruned: a table (the metric's label) and the content store's statement that prunes it. */
interface PrunedTable {
  readonly table: 'content_deletions' | 'content_reports';
  readonly prune: (em: Orm['em'], cutoff: Date, batch: number) => Promise<number>;
}

const DELETIONS: PrunedTable = { table: 'content_deletions', prune: pruneTombstones };
const REPORTS: PrunedTable = { table: 'content_reports', prune: pruneReports };

export interface PruneContentHistoryOptions {
  readonly orm: Orm;
  readonly logger: Logger;
  readonly metrics?: Registry;
  /** Tombstones (content_deletions) older than this go; 0 keeps them for ever. */
  readonly tombstoneRetentionDays: number;
  /** Tracked reports (content_reports) older than this go; 0 keeps them for ever. */
  readonly reportRetentionDays: number;
  /** Rows one statement deletes at most (default 1000), so no run holds a long lock. */
  readonly batchSize?: number;
  readonly intervalMs: number;
}

/** Rows deleted per table by one run, and the statements it took. */
export type PruneOutcome = Record<PrunedTable['table'], { readonly rows: number; readonly batches: number }>;

/**
 * Issue #19: tombstones of deleted entities and the tracking rows of reports are pruned once they can
 * no longer matter: a tombstone only bars events older than the deletion, which cannot arrive once
 * every topic that carries them (and the dead letters they can be replayed from) has dropped them;
 * a report is followed for a while after it is made. Each statement deletes at most a batch of the
 * oldest rows, found through an index on the time column.
 */
export class ContentHistoryPruner {
  private readonly pruned?: Counter<'table'>;

  constructor(private readonly options: PruneContentHistoryOptions) {
    if (options.metrics) {
      this.pruned = new Counter({
        name: 'content_history_pruned_total',
        help: 'Rows pruned by age: content_deletions (tombstones) and content_reports (tracking)',
        labelNames: ['table'] as const,
        registers: [options.metrics],
      });
    }
  }

  async runOnce(now = new Date()): Promise<PruneOutcome> {
    return {
      content_deletions: await this.prune(DELETIONS, this.options.tombstoneRetentionDays, now),
      content_reports: await this.prune(REPORTS, this.options.reportRetentionDays, now),
    };
  }

  private async prune(target: PrunedTable, retentionDays: number, now: Date) {
    if (retentionDays === 0) return { rows: 0, batches: 0 };
    const batch = this.options.batchSize ?? 1000;
    const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
    const { table, prune } = target;
    const em = this.options.orm.em.fork();
    let rows = 0;
    let batches = 0;
    for (;;) {
      const count = await prune(em, cutoff, batch);
      batches += 1;
      rows += count;
      if (count > 0) this.pruned?.inc({ table }, count);
      if (count < batch) return { rows, batches };
    }
  }

  task(): BackgroundTask {
    return periodicTask(this.options.intervalMs, () =>
      this.runOnce()
        .then((outcome) => {
          const rows = outcome.content_deletions.rows + outcome.content_reports.rows;
          if (rows > 0) this.options.logger.info({ pruned: outcome }, 'pruned old tombstones and reports');
        })
        .catch((err: unknown) => this.options.logger.warn({ err }, 'could not prune tombstones and reports')),
    );
  }
}
