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
import { TranslationCompletedHandler } from './translation-completed.handler.js';
import { TranslationWriter } from './translation-writer.js';

export interface ProjectionTaskContext {
  readonly orm: Orm;
  readonly kafka: Kafka;
  /** Optional: without it the read cache is not invalidated (entries expire by their TTL). */
  readonly redis?: RedisClient;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

export interface ProjectionTaskOptions {
  readonly topicPrefix: string;
  readonly redisKeyPrefix: string;
  /** Messages handled at once; their writes share statements (see TranslationWriter). */
  readonly concurrency: number;
}

/**
 * The projection as a background task: consumer group worker.projection on translation.completed.v1,
 * poison messages to the dead letters (their own producer), offsets committed after each batch.
 */
export function projectionTask(
  context: ProjectionTaskContext,
  options: ProjectionTaskOptions,
): BackgroundTask & HealthReporting {
  const logger = context.logger.child({ component: 'projection' });
  const codec = new EventCodec();
  const groupId = consumerGroup('projection', options.topicPrefix);
  const handler = new TranslationCompletedHandler({
    codec,
    writer: new TranslationWriter(context.orm),
    metrics: context.metrics,
    cache: new ReadCacheInvalidator({
      redis: context.redis,
      keyPrefix: options.redisKeyPrefix,
      logger,
      component: 'projection',
      metrics: context.metrics,
    }),
  });
  return guardedConsumer(handler.handle, {
    kafka: context.kafka,
    groupId,
    topics: [topicName('translationCompleted', options.topicPrefix)],
    codec,
    logger,
    topicPrefix: options.topicPrefix,
    concurrency: options.concurrency,
    ...(context.metrics ? { metrics: context.metrics } : {}),
  });
}
