import { createRequire } from 'node:module';

import type { DependencyCheck, Logger } from '@tp/runtime';
import { Kafka, logLevel, type LogEntry } from 'kafkajs';

import { compressionPolicy, type CompressionPolicy } from './compression.js';
import { fixRequestQueueIdleLoop } from './request-queue.js';
import { TopicLimits } from './topic-limits.js';

/**
 * Messages of the Kafka protocol errors kafkajs itself retries (e.g. "The coordinator is loading..."
 * right after a broker starts). kafkajs logs each failed response at error level even when the retry
 * then succeeds; those lines are logged as warnings here, so `error` keeps meaning a real failure.
 */
const RETRIABLE_MESSAGES: ReadonlySet<string> = new Set(
  (
    createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as {
      errorCodes: { message: string; retriable: boolean }[];
    }
  ).errorCodes
    .filter((e) => e.retriable)
    .map((e) => e.message),
);

export interface KafkaOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger: Logger;
  /** Per-connection timeout in ms. */
  readonly connectionTimeoutMs?: number;
  /** KAFKA_COMPRESSION: the codec of each topic for every KafkaProducer of this client. */
  readonly compression?: string;
  /** Prefix of the topic names, so `compression` can name topics without it. */
  readonly topicPrefix?: string;
}

/** What every producer made from one client shares: its topics' limits and codecs. */
export interface ProducerDefaults {
  readonly limits: TopicLimits;
  readonly compression: CompressionPolicy;
}

const producerDefaults = new WeakMap<Kafka, ProducerDefaults>();

/**
 * The limits and codecs of the client's producers. One TopicLimits per client, so every producer of
 * a process reads a topic's limit once a minute, not each on its own.
 */
export function producerDefaultsOf(kafka: Kafka): ProducerDefaults {
  let defaults = producerDefaults.get(kafka);
  if (!defaults) {
    defaults = { limits: new TopicLimits(kafka), compression: compressionPolicy('') };
    producerDefaults.set(kafka, defaults);
  }
  return defaults;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** Our log level for a kafkajs log entry: retried protocol errors are warnings, not errors. */
export function kafkaLogLevel(level: logLevel, error: unknown): 'error' | 'warn' | 'info' | 'debug' {
  if (level === logLevel.ERROR && RETRIABLE_MESSAGES.has(String(error))) return 'warn';
  return LEVELS[level] ?? 'info';
}

export function createKafka(options: KafkaOptions): Kafka {
  const { brokers, clientId, logger, connectionTimeoutMs = 3000 } = options;
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  // Before any connection exists: no idle 1 ms timer loop per broker connection (request-queue.ts).
  fixRequestQueueIdleLoop();
  const log = logger.child({ component: 'kafkajs' });
  const kafka = new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout: connectionTimeoutMs,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry;
        log[kafkaLogLevel(level, entry.error)](rest, message);
      },
  });
  producerDefaults.set(kafka, {
    limits: new TopicLimits(kafka),
    compression: compressionPolicy(options.compression ?? '', options.topicPrefix),
  });
  return kafka;
}

/** Ready when the cluster answers a metadata request. */
export function kafkaCheck(kafka: Kafka, required = true): DependencyCheck & { close(): Promise<void> } {
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  return {
    name: 'kafka',
    required,
    async check() {
      connected ??= admin.connect().catch((err: unknown) => {
        connected = undefined;
        throw err;
      });
      await connected;
      await admin.describeCluster();
    },
    /** Disconnects the admin client the check keeps open (else the process cannot exit). */
    async close() {
      if (connected) await admin.disconnect();
      connected = undefined;
    },
  };
}
