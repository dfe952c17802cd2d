import type { Orm } from '@tp/db';
import type { DependencyCheck } from '@tp/runtime';
import { Gauge, type Registry } from 'prom-client';

export interface OutboxBacklog {
  /** Rows not yet published. */
  readonly rows: number;
  /** Age of the oldest unpublished row in seconds; 0 when there is none. */
  readonly oldestAgeSeconds: number;
}

/**
 * What waits in the outbox. The oldest row is the smallest unpublished id (the partial index finds
 * it at once); the count walks that index, which stays small while the relay keeps up.
 */
export async function outboxBacklog(orm: Orm): Promise<OutboxBacklog> {
  const connection = orm.em.getConnection();
  const [oldest] = await connection.execute<{ age: number | null }[]>(
    'select extract(epoch from now() - created_at)::float8 as age from outbox ' +
      'where published_at is null order by id limit 1',
  );
  if (!oldest) return { rows: 0, oldestAgeSeconds: 0 };
  const [count] = await connection.execute<{ rows: string }[]>(
    'select count(*) as rows from outbox where published_at is null',
  );
  return { rows: Number(count?.rows ?? 0), oldestAgeSeconds: Math.max(0, Number(oldest.age ?? 0)) };
}

/** outbox_backlog_rows and outbox_backlog_oldest_age_seconds, read from Postgres at each scrape. */
export function outboxBacklogGauges(orm: Orm, registry: Registry): void {
  let reading: Promise<OutboxBacklog> | undefined;
  // Both gauges are collected in one scrape: they share one read.
  const read = () => {
    reading ??= outboxBacklog(orm).finally(() => setTimeout(() => (reading = undefined), 100));
    return reading;
  };
  new Gauge({
    name: 'outbox_backlog_rows',
    help: 'Outbox rows not yet published to Kafka',
    registers: [registry],
    async collect() {
      this.set((await read().catch(() => undefined))?.rows ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'outbox_backlog_oldest_age_seconds',
    help: 'Age of the oldest outbox row not yet published (0 when none waits)',
    registers: [registry],
    async collect() {
      this.set((await read().catch(() => undefined))?.oldestAgeSeconds ?? Number.NaN);
    },
  });
}

/**
 * For the worker's /ready: down (optional, so the worker stays ready: degraded) when the oldest
 * unpublished row waits longer than `degradedAfterSeconds`, which means the relay is stalled or far
 * behind.
 */
export function outboxBacklogCheck(orm: Orm, degradedAfterSeconds: number): DependencyCheck {
  return {
    name: 'outbox-backlog',
    required: false,
    async check() {
      const { rows, oldestAgeSeconds } = await outboxBacklog(orm);
      if (oldestAgeSeconds > degradedAfterSeconds) {
        throw new Error(
          `degraded: ${rows} outbox rows unpublished, the oldest for ${Math.round(oldestAgeSeconds)} s ` +
            `(OUTBOX_BACKLOG_DEGRADED_S=${degradedAfterSeconds})`,
        );
      }
    },
  };
}
