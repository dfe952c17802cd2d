import { consumerGroup, topicName } from '@tp/contracts';
import type { Orm } from '@tp/db';
import { guardedConsumer } from '@tp/pipeline';
import type { HealthReporting } from '@tp/kafka';
import type { BackgroundTask } from '@tp/platform';
import type { RedisClient } from '@tp/redis';
import type { Logger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';

import { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { ContentChangedHandler } from './content-changed.handler.js';

export interface PlannerTaskContext {
  readonly orm: Orm;
  readonly kafka: Kafka;
  /** Optional: without it the read cache is not invalidated (entries expire by their TTL). */
  readonly redis?: RedisClient;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

export interface PlannerTaskOptions {
  readonly topicPrefix: string;
  readonly redisKeyPrefix: string;
  /** Messages handled at once (different entities); each holds a database connection for its transaction. */
  readonly concurrency: number;
}

/**
 * The planner as a background task: consumer group worker.planner on content.changed.v1, poison
 * messages to the dead letters (their own producer), offsets committed after each batch.
 */
export function plannerTask(
  context: PlannerTaskContext,
  options: PlannerTaskOptions,
): BackgroundTask & HealthReporting {
  const logger = context.logger.child({ component: 'planner' });
  const codec = new EventCodec();
  const groupId = consumerGroup('planner', options.topicPrefix);
  const handler = new ContentChangedHandler({
    orm: context.orm,
    codec,
    topicPrefix: options.topicPrefix,
    metrics: context.metrics,
    cache: new ReadCacheInvalidator({
      redis: context.redis,
      keyPrefix: options.redisKeyPrefix,
      logger,
      component: 'planner',
      metrics: context.metrics,
    }),
  });
  return guardedConsumer(handler.handle, {
    kafka: context.kafka,
    groupId,
    topics: [topicName('contentChanged', options.topicPrefix)],
    codec,
    logger,
    topicPrefix: options.topicPrefix,
    concurrency: options.concurrency,
    ...(context.metrics ? { metrics: context.metrics } : {}),
  });
}
