import { outboxBacklog, type Orm, type OutboxBacklog } from '@tp/db';
import type { DependencyCheck } from '@tp/runtime';
import { Gauge, type Registry } from 'prom-client';

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
 * For the worker's /ready: degraded (the worker stays ready) when the oldest unpublished row waits
 * longer than `degradedAfterSeconds`, which means the relay is stalled or far behind; down when the
 * outbox cannot be read.
 */
export function outboxBacklogCheck(orm: Orm, degradedAfterSeconds: number): DependencyCheck {
  return {
    name: 'outbox-backlog',
    required: false,
    async check() {
      const { rows, oldestAgeSeconds } = await outboxBacklog(orm);
      if (oldestAgeSeconds <= degradedAfterSeconds) return undefined;
      return {
        degraded:
          `${rows} outbox rows unpublished, the oldest for ${Math.round(oldestAgeSeconds)} s ` +
          `(OUTBOX_BACKLOG_DEGRADED_S=${degradedAfterSeconds})`,
      };
    },
  };
}
