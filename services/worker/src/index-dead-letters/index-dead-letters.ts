import { consumerGroup, topicName } from '@tp/contracts';
import { KafkaConsumer, type HealthReporting, type MessageHandler } from '@tp/kafka';
import { deadLetterEntry, type DeadLetterIndex } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';
import { SchemaError, type EventCodec } from '@tp/schemas';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';

import { deadLetterMetrics, type DeadLetterMetrics } from './dead-letter-metrics.js';

export interface DeadLetterIndexerOptions {
  readonly kafka: Kafka;
  readonly index: DeadLetterIndex;
  readonly codec: EventCodec;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly topicPrefix?: string;
}

/**
 * Handles one message of translation.dlq.v1: adds its DeadLetter event to the index (idempotent on the
 * original message and group) and counts evictions. A message that is not a DeadLetter cannot be sent
 * to the dead letters (it is on that topic already): it is logged, counted and skipped. Database
 * errors are thrown, so the message comes again.
 */
export function indexDeadLetter(
  index: DeadLetterIndex,
  codec: EventCodec,
  metrics: DeadLetterMetrics,
  logger: Logger,
): MessageHandler {
  return async (message) => {
    let event;
    try {
      event = codec.decode(message.value, message.headers);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      metrics.unreadable.inc();
      logger.error(
        { offset: message.offset, code: err.code, err: err.message },
        'unreadable dead letter skipped',
      );
      return;
    }
    if (event.eventType !== 'DeadLetter') {
      metrics.unreadable.inc();
      logger.error({ offset: message.offset, eventType: event.eventType }, 'not a dead letter; skipped');
      return;
    }
    const { added, evicted } = await index.add(deadLetterEntry(event));
    if (added) metrics.indexed.inc();
    if (evicted > 0) {
      metrics.evicted.inc(evicted);
      logger.info({ evicted, maxEntries: index.maxEntries }, 'oldest dead letters evicted from the index');
    }
  };
}

/** The worker's consumer of the dead-letter topic (group worker.dead-letters). */
export function deadLetterIndexer(options: DeadLetterIndexerOptions): BackgroundTask & HealthReporting {
  const prefix = options.topicPrefix ?? '';
  const consumer = new KafkaConsumer(options.kafka, {
    groupId: consumerGroup('deadLetters', prefix),
    topics: [topicName('deadLetter', prefix)],
    logger: options.logger,
  });
  const handler = indexDeadLetter(
    options.index,
    options.codec,
    deadLetterMetrics(options.metrics, options.index),
    options.logger,
  );
  return {
    start: () => consumer.start(handler),
    stop: () => consumer.stop(),
    health: () => consumer.health(),
  };
}
