import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentDeletion, ContentReport, type Orm } from '@tp/db';
import { createLogger } from '@tp/runtime';
import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { Registry } from 'prom-client';

import { ContentHistoryPruner } from './prune-content-history.js';

let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

const DAY = 86_400_000;
const now = new Date('2026-11-24T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);

async function tombstone(entityId: string, deletedAt: Date): Promise<void> {
  await orm.em.fork().insert(ContentDeletion, {
    entityType: 'vendor',
    entityId,
    module: 'catalog',
    deletedVersion: 3,
    deletedAt,
  });
}

async function report(entityId: string, acceptedAt: Date): Promise<void> {
  await orm.em.fork().insert(ContentReport, {
    trackingId: randomUUID(),
    apiKeyId: randomUUID(),
    kind: 'change',
    module: 'catalog',
    entityType: 'vendor',
    entityId,
    acceptedAt,
  });
}

const left = async (table: 'content_deletions' | 'content_reports') => {
  const em = orm.em.fork();
  const order = { orderBy: { entityId: 'asc' } } as const;
  const rows =
    table === 'content_deletions'
      ? await em.find(ContentDeletion, {}, order)
      : await em.find(ContentReport, {}, order);
  return rows.map((row) => row.entityId);
};

describe('ContentHistoryPruner', () => {
  it('prunes tombstones and reports older than their retentions in bounded batches, keeps the recent ones and counts them', async () => {
    for (let i = 0; i < 5; i += 1) await tombstone(`old-${i}`, daysAgo(31 + i));
    await tombstone('recent', daysAgo(29));
    for (let i = 0; i < 3; i += 1) await report(`old-${i}`, daysAgo(8 + i));
    await report('recent', daysAgo(6));
    const metrics = new Registry();
    const pruner = new ContentHistoryPruner({
      orm,
      logger: createLogger('test', 'silent'),
      metrics,
      tombstoneRetentionDays: 30,
      reportRetentionDays: 7,
      batchSize: 2,
      intervalMs: 3_600_000,
    });

    expect(await pruner.runOnce(now)).toEqual({
      // 2 + 2 + 1: no statement deletes more than a batch.
      content_deletions: { rows: 5, batches: 3 },
      content_reports: { rows: 3, batches: 2 },
    });
    expect(await left('content_deletions')).toEqual(['recent']);
    expect(await left('content_reports')).toEqual(['recent']);
    const pruned = await metrics.getSingleMetric('content_history_pruned_total')?.get();
    expect(pruned?.values.map(({ labels, value }) => [labels.table, value])).toEqual([
      ['content_deletions', 5],
      ['content_reports', 3],
    ]);
    // Nothing left to prune: one statement per table finds nothing.
    expect(await pruner.runOnce(now)).toEqual({
      content_deletions: { rows: 0, batches: 1 },
      content_reports: { rows: 0, batches: 1 },
    });
  });

  it('keeps everything of a table whose retention is 0', async () => {
    await tombstone('kept-forever', daysAgo(400));
    const pruner = new ContentHistoryPruner({
      orm,
      logger: createLogger('test', 'silent'),
      tombstoneRetentionDays: 0,
      reportRetentionDays: 7,
      intervalMs: 3_600_000,
    });
    expect((await pruner.runOnce(now)).content_deletions).toEqual({ rows: 0, batches: 0 });
    expect(await left('content_deletions')).toContain('kept-forever');
  });

  it('finds the oldest rows through the time column indexes', async () => {
    // The selections pruneTombstones and pruneReports make (libs/pipeline content-store/retention.ts),
    // built from the entities; one transaction, so the planner setting and the plans share a connection.
    const plans = await orm.em.fork().transactional(async (em) => {
      await em.execute('set local enable_seqscan = off');
      const oldest = [
        em
          .createQueryBuilder(ContentDeletion)
          .select(['entityType', 'entityId'])
          .where({ deletedAt: { $lt: now } })
          .orderBy({ deletedAt: 'asc' })
          .limit(10),
        em
          .createQueryBuilder(ContentReport)
          .select(['trackingId'])
          .where({ acceptedAt: { $lt: now } })
          .orderBy({ acceptedAt: 'asc' })
          .limit(10),
      ];
      const explained = [];
      for (const qb of oldest) {
        explained.push(JSON.stringify(await em.execute(`explain (format json) ${qb.getFormattedQuery()}`)));
      }
      return explained;
    });
    expect(plans[0]).toContain('content_deletions_deleted_at_idx');
    expect(plans[1]).toContain('content_reports_accepted_at_idx');
  });
});
