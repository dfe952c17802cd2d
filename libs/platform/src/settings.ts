import { parseCompression } from '@tp/kafka';
import { env } from '@tp/runtime';
import { z } from 'zod';

// Every setting carries its one-line meaning (`.describe`): docs/configuration.md is written from these
// modules by `npm run config:docs`, and a test fails when the two differ.

/** Settings every process shares. Each service's config.ts adds its own and parses them in one go. */
export const commonSettings = {
  HOST: env.string('127.0.0.1').describe('interface to bind (`0.0.0.0` in containers)'),
  LOG_LEVEL: env.logLevel().describe('pino level: fatal, error, warn, info, debug, trace or silent'),
  DATABASE_URL: env
    .url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/translation_platform')
    .describe('Postgres. Required: unreachable at start means exit 1'),
  DATABASE_POOL_MAX: env.positiveInt(10).describe('connections of the Postgres pool of each process'),
  REDIS_URL: env
    .url(['redis', 'rediss'], 'redis://127.0.0.1:6379/0')
    .describe('Redis. Optional: without it a process runs slower (no caches), `/ready` shows it degraded'),
  REDIS_KEY_PREFIX: env
    .string('tp:')
    .describe('prefix of every Redis key; the same for every process of one stack (they share the caches)'),
  KAFKA_BROKERS: env
    .brokers('127.0.0.1:9092')
    .describe(
      'comma-separated `host:port`. Required: unreachable at start means exit 1 (the nli service uses no Kafka)',
    ),
  KAFKA_TOPIC_PREFIX: env
    .string('')
    .describe('prefix of every topic and consumer group name: isolated pipelines on one cluster'),
  KAFKA_COMPRESSION: z
    .string()
    .default('none')
    .superRefine((value, ctx) => {
      try {
        parseCompression(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .describe(
      'codec of what a process produces, per topic: `gzip` for every topic, or items such as `none,translation.requested.v1=gzip` (names without the prefix)',
    ),
};

/**
 * Named constants every service has, spread into each service's tuning (so a test shortens them
 * in-process, as its other constants):
 * - CONNECT_TIMEOUT_MS: how long start-up and readiness checks wait for Postgres and Kafka; a
 *   dependency slower than 5 s to answer is down for a readiness probe.
 */
export const COMMON_TUNING = {
  CONNECT_TIMEOUT_MS: 5000,
};

export interface CommonSettings {
  readonly HOST: string;
  readonly LOG_LEVEL: string;
  readonly DATABASE_URL: string;
  readonly DATABASE_POOL_MAX: number;
  readonly REDIS_URL: string;
  readonly REDIS_KEY_PREFIX: string;
  readonly KAFKA_BROKERS: string[];
  readonly KAFKA_TOPIC_PREFIX: string;
  readonly KAFKA_COMPRESSION: string;
  /** COMMON_TUNING's. */
  readonly CONNECT_TIMEOUT_MS: number;
}

/** The HTTP port of a service, `fallback` by default (`npm start` sets each from its own variable). */
export const portSetting = (fallback: number) =>
  env
    .port(fallback)
    .describe(
      'HTTP port of the service; `npm start` sets it from GATEWAY_PORT, TRANSLATOR_PORT, NLI_PORT or WORKER_PORT',
    );

/** Settings two services read alike: defined once here, spread into both. */
export const sharedSettings = {
  /** The translator and the nli service. */
  ALLOW_TEST_MODELS: env
    .bool(false)
    .describe(
      'load models marked as test models (the tiny lexicon and keyword models of `tools/models`); only tests set it: otherwise the translator skips such a folder with a warning and never offers it on `/pairs`, and the nli service refuses it (`model` degraded, saying why)',
    ),
  /** The gateway and the translator. */
  MAX_TEXT_CHARS: env
    .positiveInt(50_000)
    .describe(
      'most characters of one translation with an API key (413 `TEXT_TOO_LONG` above); without a key `POST /api/v1/translate` takes 5000; longer text is split for the engines',
    ),
};

/**
 * Longest text of an NLI check, the same for the gateway (chat guardrail pieces, the API document) and
 * the nli service: about what the NLI model reads of a pair (512 tokens). A named constant
 * (NLI_MAX_TEXT_CHARS in GATEWAY_TUNING and NLI_TUNING), not a setting: it follows the model.
 */
export const NLI_TEXT_LIMIT = 2000;

/**
 * The settings of `npm start` (scripts/start.sh, which is bash) and of the APy it runs
 * (infra/apertium/apertium.sh): typed here so docs/configuration.md lists them with the others.
 */
export const stackSettings = {
  GATEWAY_PORT: env.port(3000).describe("the gateway's port under `npm start` (its PORT)"),
  TRANSLATOR_PORT: env
    .port(3004)
    .describe("the translator's port under `npm start`; TRANSLATOR_URL follows it"),
  NLI_PORT: env.port(3005).describe("the nli service's port under `npm start`; NLI_URL follows it"),
  WORKER_PORT: env.port(3006).describe("the worker's port under `npm start`; WORKER_URL follows it"),
  APERTIUM_PORT: env
    .port(2737)
    .describe(
      'port of the APy `npm start` runs when APERTIUM_URL is not set (APy listens on every interface)',
    ),
  APERTIUM_PAIRS: env
    .string('eng-spa eng-cat en-gl fr-es es-pt spa-cat spa-ita rus-ukr')
    .describe('Debian Apertium pair packages (`apertium-<pair>`) `npm start` installs when missing'),
};
