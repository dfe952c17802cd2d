import {
  KafkaConsumer,
  KafkaProducer,
  publishingBatchHandler,
  type HealthReporting,
  type MessageHandler,
} from '@tp/kafka';
import type { Logger } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';

import { guardWithDeadLetters } from './dead-letter-guard.js';

export interface GuardedConsumerOptions {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly codec: EventCodec;
  readonly logger: Logger;
  /** Prefix of the dead-letter topic (the same as the consumed topics'). */
  readonly topicPrefix: string;
  /** Messages handled at once (different keys; one key's messages one after another). */
  readonly concurrency: number;
  /** Most messages of a partition taken at once (one commit, one dead-letter send per batch). */
  readonly maxBatch?: number;
  /** Partitions whose batches are handled at the same time, so one's commit overlaps another's work. Default 3. */
  readonly partitions?: number;
  readonly metrics?: Registry;
}

/**
 * A pipeline consumer as a background task: the handler behind guardWithDeadLetters, run over batches
 * of a partition's messages (up to `concurrency` at once, in order per key), the batch's dead letters
 * sent together by a producer of its own and acknowledged before the batch's offsets are committed.
 */
export function guardedConsumer(
  handler: MessageHandler,
  options: GuardedConsumerOptions,
): HealthReporting & { start(): Promise<void>; stop(): Promise<void> } {
  const producer = new KafkaProducer(options.kafka);
  const consumer = new KafkaConsumer(options.kafka, {
    groupId: options.groupId,
    topics: options.topics,
    logger: options.logger,
    partitionsConsumedConcurrently: options.partitions ?? 3,
  });
  const handleBatch = publishingBatchHandler(
    (deadLetters) =>
      guardWithDeadLetters(handler, {
        producer: deadLetters,
        codec: options.codec,
        consumerGroup: options.groupId,
        logger: options.logger,
        topicPrefix: options.topicPrefix,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      }),
    producer,
    { concurrency: options.concurrency },
  );
  return {
    start: async () => {
      await producer.connect();
      await consumer.startBatches(handleBatch, options.maxBatch);
    },
    stop: async () => {
      await consumer.stop();
      await producer.disconnect();
    },
    health: () => consumer.health(),
  };
}
