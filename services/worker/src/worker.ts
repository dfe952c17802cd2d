import type { Kafka } from 'kafkajs';

import type { Orm } from '@tp/db';
import { consumersCheck, consumersGauge, KafkaProducer } from '@tp/kafka';
import { DeadLetterIndex } from '@tp/pipeline';
import { startService, type BackgroundTask, type ServiceContext, type ServiceParts } from '@tp/platform';
import { EventCodec } from '@tp/schemas';

import { BackfillRunner } from './backfill-translations/backfill-runner.js';
import type { WorkerConfig } from './config.js';
import { deadLetterIndexer } from './index-dead-letters/index-dead-letters.js';
import { TextTranslationExpiry } from './expire-text-translations/expire-text-translations.js';
import { ContentHistoryPruner } from './prune-content-history/prune-content-history.js';
import { outboxBacklogCheck, outboxBacklogGauges } from './outbox-relay/outbox-backlog.js';
import { OutboxRelay } from './outbox-relay/outbox-relay.js';
import { plannerTask } from './plan-translations/planner.task.js';
import { projectionTask } from './project-translations/projection.task.js';

/**
 * Background worker (HTTP for /health, /ready and /metrics only): the outbox relay, the planner
 * (ContentChanged -> source_contents + TranslationRequested), the projection (TranslationCompleted ->
 * content_translations), the dead-letter index and the backfills. See docs/pipeline.md.
 */
export function startWorker(config: WorkerConfig) {
  return startService({
    name: 'worker',
    config,
    needs: { postgres: true, redis: true, kafka: true },
    compose: (context) => composeWorker(config, context),
  });
}

/** The worker's composition root: the relay, the consumers and the periodic jobs, made once. */
function composeWorker(config: WorkerConfig, { deps, logger, metrics }: ServiceContext): ServiceParts {
  if (!deps.orm || !deps.kafka) throw new Error('worker needs Postgres and Kafka');
  outboxBacklogGauges(deps.orm, metrics);
  const index = new DeadLetterIndex(deps.orm, { maxEntries: config.DEAD_LETTER_MAX_ENTRIES });
  const relayTask = outboxRelayTask(deps.orm, deps.kafka, index, config, { logger, metrics });
  const deadLetters = deadLetterIndexer({
    kafka: deps.kafka,
    index,
    codec: new EventCodec(),
    logger: logger.child({ component: 'dead-letter-index' }),
    metrics,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
  });
  const consumers = { orm: deps.orm, kafka: deps.kafka, redis: deps.redis, logger, metrics };
  const planner = plannerTask(consumers, {
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    concurrency: config.PLANNER_CONCURRENCY,
  });
  const projection = projectionTask(consumers, {
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    concurrency: config.PROJECTION_CONCURRENCY,
  });
  const consuming = [deadLetters, planner, projection];
  consumersGauge(metrics, () => consuming);
  const expiry = new TextTranslationExpiry({
    orm: deps.orm,
    logger: logger.child({ component: 'text-expiry' }),
    retentionDays: config.TEXT_TRANSLATION_RETENTION_DAYS,
    intervalMs: 3_600_000,
  });
  const pruner = new ContentHistoryPruner({
    orm: deps.orm,
    logger: logger.child({ component: 'content-history-pruner' }),
    metrics,
    tombstoneRetentionDays: config.CONTENT_TOMBSTONE_RETENTION_DAYS,
    reportRetentionDays: config.CONTENT_REPORT_RETENTION_DAYS,
    intervalMs: 3_600_000,
  });
  const backfills = new BackfillRunner({
    orm: deps.orm,
    codec: new EventCodec(),
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    logger: logger.child({ component: 'backfill' }),
    metrics,
  });
  return {
    // Besides the outbox relay, consuming is what the worker is for: not ready while a consumer is not.
    checks: [
      consumersCheck('consumers', true, () => consuming),
      outboxBacklogCheck(deps.orm, config.OUTBOX_BACKLOG_DEGRADED_S),
    ],
    tasks: [relayTask, deadLetters, planner, projection, expiry.task(), pruner.task(), backfills.task()],
  };
}

/** The outbox relay with its own producer, connected before it starts and after it stops. */
function outboxRelayTask(
  orm: Orm,
  kafka: Kafka,
  deadLetters: DeadLetterIndex,
  config: WorkerConfig,
  { logger, metrics }: Pick<ServiceContext, 'logger' | 'metrics'>,
): BackgroundTask {
  const producer = new KafkaProducer(kafka);
  const relay = new OutboxRelay(orm, producer, {
    batchSize: config.OUTBOX_BATCH_SIZE,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    retentionMs: config.OUTBOX_RETENTION_HOURS * 3_600_000,
    logger: logger.child({ component: 'outbox-relay' }),
    deadLetters,
    metrics,
  });
  return {
    start: async () => {
      await producer.connect();
      await relay.start();
    },
    stop: async () => {
      await relay.stop();
      await producer.disconnect();
    },
  };
}
