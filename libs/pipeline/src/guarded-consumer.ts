import { KafkaConsumer, KafkaProducer, type MessageHandler } from '@tp/kafka';
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
  /** Partitions handled at once. */
  readonly concurrency: number;
  readonly metrics?: Registry;
}

/**
 * A pipeline consumer as a background task: the handler behind guardWithDeadLetters, with a producer
 * of its own for the dead letters, offsets committed after each handled message.
 */
export function guardedConsumer(
  handler: MessageHandler,
  options: GuardedConsumerOptions,
): { start(): Promise<void>; stop(): Promise<void> } {
  const producer = new KafkaProducer(options.kafka);
  const consumer = new KafkaConsumer(options.kafka, {
    groupId: options.groupId,
    topics: options.topics,
    logger: options.logger,
    partitionsConsumedConcurrently: options.concurrency,
  });
  const handle = guardWithDeadLetters(handler, {
    producer,
    codec: options.codec,
    consumerGroup: options.groupId,
    logger: options.logger,
    topicPrefix: options.topicPrefix,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  return {
    start: async () => {
      await producer.connect();
      await consumer.start(handle);
    },
    stop: async () => {
      await consumer.stop();
      await producer.disconnect();
    },
  };
}
