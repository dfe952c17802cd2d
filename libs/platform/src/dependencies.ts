import { connectDatabase, postgresCheck, type Orm } from '@tp/db';
import { createKafka, kafkaCheck } from '@tp/kafka';
import { closeRedis, connectInBackground, createRedis, redisCheck, type RedisClient } from '@tp/redis';
import { ConfigError, redactUrl, withTimeout, type DependencyCheck, type Logger } from '@tp/runtime';
import type { Kafka } from 'kafkajs';

import type { CommonSettings } from './settings.js';

export interface Dependencies {
  readonly orm?: Orm;
  readonly redis?: RedisClient;
  readonly kafka?: Kafka;
  readonly checks: DependencyCheck[];
  close(): Promise<void>;
}

export interface Needs {
  readonly postgres?: boolean;
  readonly redis?: boolean;
  readonly kafka?: boolean;
}

/**
 * Connects what a service needs. Postgres and Kafka are required: if either cannot be reached at start
 * the service stops with a ConfigError naming DATABASE_URL or KAFKA_BROKERS. Redis only speeds things
 * up, so it connects in the background and the service starts (degraded) without it.
 */
export async function connectDependencies(
  service: string,
  settings: CommonSettings,
  logger: Logger,
  needs: Needs,
): Promise<Dependencies> {
  const checks: DependencyCheck[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((err: unknown) => logger.warn({ err }, 'error while closing a dependency'));
    }
  };
  const timeout = settings.CONNECT_TIMEOUT_MS;
  try {
    let orm: Orm | undefined;
    if (needs.postgres) {
      orm = await connectPostgres(settings, timeout);
      const connected = orm;
      closers.push(() => connected.close(true));
      checks.push(postgresCheck(connected));
    }
    let kafka: Kafka | undefined;
    if (needs.kafka) {
      kafka = await reachableKafka(service, settings, logger, timeout);
      const check = kafkaCheck(kafka);
      closers.push(() => check.close());
      checks.push(check);
    }
    let redis: RedisClient | undefined;
    if (needs.redis) {
      redis = createRedis({ url: settings.REDIS_URL, logger, timeoutMs: Math.min(timeout, 2000) });
      connectInBackground(redis);
      const client = redis;
      closers.push(() => closeRedis(client));
      checks.push(redisCheck(client));
    }
    return {
      ...(orm ? { orm } : {}),
      ...(redis ? { redis } : {}),
      ...(kafka ? { kafka } : {}),
      checks,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Postgres connected within the timeout, or a ConfigError naming DATABASE_URL. */
async function connectPostgres(settings: CommonSettings, timeout: number): Promise<Orm> {
  return withTimeout(
    connectDatabase({
      url: settings.DATABASE_URL,
      poolMax: settings.DATABASE_POOL_MAX,
      connectTimeoutMs: timeout,
    }),
    timeout + 1000,
    `no answer within ${timeout} ms`,
  ).catch((err: Error) => {
    throw new ConfigError(
      'DATABASE_URL',
      `cannot connect to ${redactUrl(settings.DATABASE_URL)}: ${err.message}`,
    );
  });
}

/** A Kafka client whose brokers answered, or a ConfigError naming KAFKA_BROKERS. */
async function reachableKafka(
  service: string,
  settings: CommonSettings,
  logger: Logger,
  timeout: number,
): Promise<Kafka> {
  const kafka = createKafka({
    brokers: settings.KAFKA_BROKERS,
    clientId: service,
    logger,
    connectionTimeoutMs: timeout,
    compression: settings.KAFKA_COMPRESSION,
    topicPrefix: settings.KAFKA_TOPIC_PREFIX,
  });
  await assertKafkaReachable(kafka, settings, timeout);
  return kafka;
}

async function assertKafkaReachable(kafka: Kafka, settings: CommonSettings, timeout: number): Promise<void> {
  const admin = kafka.admin({ retry: { retries: 1, initialRetryTime: 200 } });
  try {
    await withTimeout(
      admin.connect().then(() => admin.describeCluster()),
      timeout,
      `no answer within ${timeout} ms`,
    );
  } catch (err) {
    throw new ConfigError(
      'KAFKA_BROKERS',
      `cannot reach ${settings.KAFKA_BROKERS.join(',')}: ${(err as Error).message}`,
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
