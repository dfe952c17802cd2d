import { randomBytes } from 'node:crypto';

import { topicName, type DeadLetter } from '@tp/contracts';
import { connectDatabase, type Orm } from '@tp/db';
import { KafkaConsumer, KafkaProducer } from '@tp/kafka';
import { closeRedis, connectInBackground, createRedis, type RedisClient } from '@tp/redis';
import type { Logger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';

import { createTestDatabase, type TestDatabase } from './databases.js';
import { createTopics, testKafka } from './kafka.js';
import { silentLogger } from './logger.js';
import { waitFor } from './wait.js';

/** What a worker task is built from: its own database, topics, Redis keys and metrics. */
export interface PipelineTaskContext {
  readonly orm: Orm;
  readonly kafka: Kafka;
  readonly redis: RedisClient;
  readonly logger: Logger;
  readonly metrics: Registry;
  /** Prefix of the topics and consumer groups. */
  readonly prefix: string;
  /** Prefix of the Redis keys (removed at the end). */
  readonly keyPrefix: string;
}

export interface PipelineTaskFixture extends PipelineTaskContext {
  readonly db: TestDatabase;
  readonly admin: Admin;
  readonly producer: KafkaProducer;
  /** Every dead letter published under the prefix, decoded, as it arrives. */
  readonly deadLetters: readonly DeadLetter[];
  close(): Promise<void>;
}

interface Task {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One worker task (the planner, the projection) on real Postgres, Kafka and Redis, isolated by a
 * fresh database and prefix: `prepare` runs before it starts (e.g. to set the configuration), and
 * the task is built by the test itself, so each test shows what it wires.
 */
export async function startPipelineTask(
  label: string,
  options: {
    /** Prefix of the topics and consumer groups (uniquePrefix), known to the test's constants. */
    readonly prefix: string;
    readonly poolMax: number;
    readonly prepare?: (orm: Orm) => Promise<void>;
    readonly task: (context: PipelineTaskContext) => Task;
  },
): Promise<PipelineTaskFixture> {
  const codec = new EventCodec();
  const { prefix } = options;
  const keyPrefix = `test:${randomBytes(4).toString('hex')}:`;
  const db = await createTestDatabase();
  const orm = await connectDatabase({ url: db.url, poolMax: options.poolMax });
  const kafka = testKafka(`${label}-int`);
  await createTopics(kafka, prefix);
  const admin = kafka.admin();
  await admin.connect();
  const redis = createRedis({ url: process.env.REDIS_URL as string, logger: silentLogger() });
  connectInBackground(redis);
  await waitFor('redis ready', () => redis.isReady);
  const producer = new KafkaProducer(kafka);
  await options.prepare?.(orm);
  const context = { orm, kafka, redis, logger: silentLogger(), metrics: new Registry(), prefix, keyPrefix };
  const task = options.task(context);
  await task.start();
  const deadLetters: DeadLetter[] = [];
  const deadLetterConsumer = new KafkaConsumer(kafka, {
    groupId: `${prefix}check-dead-letters`,
    topics: [topicName('deadLetter', prefix)],
    logger: silentLogger(),
  });
  await deadLetterConsumer.start(async (m) => {
    deadLetters.push(codec.decode(m.value, m.headers) as DeadLetter);
  });
  return {
    ...context,
    db,
    admin,
    producer,
    deadLetters,
    async close() {
      await deadLetterConsumer.stop();
      await task.stop();
      await producer.disconnect();
      await admin.disconnect();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length) await redis.del(keys);
      await closeRedis(redis);
      await orm.close(true);
      await db.drop();
    },
  };
}
