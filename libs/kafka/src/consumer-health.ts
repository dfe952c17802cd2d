import type { DependencyCheck, Logger } from '@tp/runtime';
import type { Consumer } from 'kafkajs';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Where a consumer is: started but not yet in its group, consuming, rejoining after a crash that
 * kafkajs restarts from, crashed for good (only a new process consumes again), or stopped by us.
 */
export type ConsumerState = 'starting' | 'consuming' | 'restarting' | 'crashed' | 'stopped';

export interface ConsumerHealth {
  readonly groupId: string;
  readonly state: ConsumerState;
  /** The crash behind `restarting` or `crashed`. */
  readonly error?: string;
  /** Times the consumer joined its group: the first join, then one after each rebalance. */
  readonly joins: number;
}

/** Something that consumes and can say how it is doing (a consumer, or a task built on one). */
export interface HealthReporting {
  health(): ConsumerHealth;
}

/**
 * Follows a kafkajs consumer through its instrumentation events. A crash kafkajs does not restart
 * from leaves the process up but consuming nothing: it is logged as an error here, and readiness
 * (consumersCheck) reports it.
 */
export function followHealth(consumer: Consumer, groupId: string, logger: Logger): () => ConsumerHealth {
  let health: ConsumerHealth = { groupId, state: 'starting', joins: 0 };
  consumer.on(consumer.events.GROUP_JOIN, () => {
    health = { groupId, state: 'consuming', joins: health.joins + 1 };
  });
  // kafkajs emits STOP while it disconnects after a crash, then CRASH: the crash has the last word.
  consumer.on(consumer.events.STOP, () => {
    health = { groupId, state: 'stopped', joins: health.joins };
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    const error = `${payload.error.name}: ${payload.error.message}`;
    health = { groupId, state: payload.restart ? 'restarting' : 'crashed', error, joins: health.joins };
    if (!payload.restart) {
      logger.error(
        { err: payload.error, groupId },
        'Kafka consumer crashed and will not restart: this process consumes nothing more from its topics until it is restarted',
      );
    }
  });
  return () => health;
}

/**
 * A /ready check that is up while every consumer is consuming, and otherwise says which is not and
 * why. `required: false` for a process that serves requests without its consumers (the translator).
 */
export function consumersCheck(
  name: string,
  required: boolean,
  consumers: () => readonly HealthReporting[],
): DependencyCheck {
  return {
    name,
    required,
    check: async () => {
      const all = consumers().map((consumer) => consumer.health());
      if (all.length === 0) throw new Error('no consumer has started');
      const unwell = all.filter((health) => health.state !== 'consuming');
      if (unwell.length > 0) throw new Error(unwell.map(describe).join('; '));
    },
  };
}

/**
 * `kafka_consumer_consuming{group}`, read at scrape time: 1 while the group's consumer is consuming,
 * 0 while it is starting, restarting, crashed or stopped. Alert on 0 for longer than a rebalance.
 * And `kafka_consumer_rebalances_total{group}`: the group joins of this process's consumers (one per
 * rebalance it took part in, the first join included); a steady rise means the group does not settle.
 */
export function consumersGauge(registry: Registry, consumers: () => readonly HealthReporting[]): void {
  new Counter({
    name: 'kafka_consumer_rebalances_total',
    help: 'Times the consumer of a group joined it: the first join, then one per rebalance',
    labelNames: ['group'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const consumer of consumers()) {
        const { groupId, joins } = consumer.health();
        this.inc({ group: groupId }, joins);
      }
    },
  });
  new Gauge({
    name: 'kafka_consumer_consuming',
    help: 'Whether the consumer of a group is consuming (1), or starting, restarting, crashed or stopped (0)',
    labelNames: ['group'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const consumer of consumers()) {
        const { groupId, state } = consumer.health();
        this.set({ group: groupId }, state === 'consuming' ? 1 : 0);
      }
    },
  });
}

function describe({ groupId, state, error }: ConsumerHealth): string {
  return error === undefined ? `${groupId}: ${state}` : `${groupId}: ${state} (${error})`;
}
