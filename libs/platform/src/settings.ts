import { parseCompression } from '@tp/kafka';
import { env } from '@tp/runtime';
import { z } from 'zod';

/** Settings every process shares. Each service's config.ts adds its own and parses them in one go. */
export const commonSettings = {
  HOST: env.string('127.0.0.1'),
  LOG_LEVEL: env.logLevel(),
  DATABASE_URL: env.url(
    ['postgres', 'postgresql'],
    'postgres://postgres@127.0.0.1:5432/translation_platform',
  ),
  DATABASE_POOL_MAX: env.positiveInt(10),
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379/0'),
  KAFKA_BROKERS: env.brokers('127.0.0.1:9092'),
  /** Prefix for every topic name, so tests (or tenants) can run isolated pipelines on one cluster. */
  KAFKA_TOPIC_PREFIX: env.string(''),
  /**
   * Compression of what this process produces, per topic: `gzip` for every topic, or items such as
   * `none,translation.requested.v1=gzip` (topic names without the prefix). Default `none`.
   */
  KAFKA_COMPRESSION: z
    .string()
    .default('none')
    .superRefine((value, ctx) => {
      try {
        parseCompression(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  /** Connection timeouts used at start and by readiness checks, in ms. */
  CONNECT_TIMEOUT_MS: env.positiveInt(5000),
};

export interface CommonSettings {
  readonly HOST: string;
  readonly LOG_LEVEL: string;
  readonly DATABASE_URL: string;
  readonly DATABASE_POOL_MAX: number;
  readonly REDIS_URL: string;
  readonly KAFKA_BROKERS: string[];
  readonly KAFKA_TOPIC_PREFIX: string;
  readonly KAFKA_COMPRESSION: string;
  readonly CONNECT_TIMEOUT_MS: number;
}
