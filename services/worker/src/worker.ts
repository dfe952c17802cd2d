import { KafkaProducer } from '@tp/kafka';
import { startService, type BackgroundTask } from '@tp/platform';

import type { WorkerConfig } from './config.js';
import { OutboxRelay } from './outbox-relay/outbox-relay.js';

/**
 * Background worker (HTTP for /health, /ready and /metrics only): the outbox relay now; the planner,
 * the projection and the dead-letter index join it in later use cases.
 */
export function startWorker(config: WorkerConfig) {
  return startService({
    name: 'worker',
    config,
    needs: { postgres: true, redis: true, kafka: true },
    background: ({ deps, logger, metrics }) => {
      if (!deps.orm || !deps.kafka) throw new Error('worker needs Postgres and Kafka');
      const producer = new KafkaProducer(deps.kafka);
      const relay = new OutboxRelay(deps.orm, producer, {
        batchSize: config.OUTBOX_BATCH_SIZE,
        pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
        retentionMs: config.OUTBOX_RETENTION_HOURS * 3_600_000,
        logger: logger.child({ component: 'outbox-relay' }),
        metrics,
      });
      const relayTask: BackgroundTask = {
        start: async () => {
          await producer.connect();
          await relay.start();
        },
        stop: async () => {
          await relay.stop();
          await producer.disconnect();
        },
      };
      return [relayTask];
    },
  });
}
