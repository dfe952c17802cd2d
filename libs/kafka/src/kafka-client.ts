import type { DependencyCheck, Logger } from '@tp/runtime';
import { Kafka, logLevel, type LogEntry } from 'kafkajs';

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
        log[LEVELS[level] ?? 'info'](rest, message);
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
