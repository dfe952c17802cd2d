import { createRequire } from 'node:module';

import type { DependencyCheck, Logger } from '@tp/runtime';
import { Kafka, logLevel, type LogEntry } from 'kafkajs';

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

export function createKafka({ brokers, clientId, logger, connectionTimeoutMs = 3000 }: KafkaOptions): Kafka {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
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
