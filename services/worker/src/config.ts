import { TOPICS } from '@tp/contracts';
import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** The longest retention of a topic whose events a tombstone bars, in whole days (30). */
const TOMBSTONE_DAYS = Math.ceil(
  Math.max(
    ...(
      [
        'contentChanged',
        'translationRequested',
        'translationRequestedRetry',
        'translationCompleted',
        'deadLetter',
      ] as const
    ).map((topic) => TOPICS[topic].retentionMs),
  ) / 86_400_000,
);

/** Worker settings (environment variables); documented in README "Configuration". */
export const workerSettings = z.object({
  ...commonSettings,
  /** Health and metrics only. */
  PORT: env.port(3006),
  OUTBOX_BATCH_SIZE: env.positiveInt(500),
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(100),
  /** Outbox rows an older release marked published (this one deletes what it publishes) are deleted after this many hours. */
  OUTBOX_RETENTION_HOURS: env.positiveInt(24),
  /**
   * Days a stored translation of anonymous free text (entity type `text`, from POST /api/v1/translate)
   * is kept after its last update; 0 keeps them for ever. Checked every hour.
   */
  TEXT_TRANSLATION_RETENTION_DAYS: env.nonNegativeInt(30),
  /**
   * Days a tombstone of a deleted entity (content_deletions) is kept; 0 keeps them for ever. It only
   * bars events older than the deletion, so the default is the longest retention of the topics that
   * can still hand such an event over: the content, request and result topics and the dead letters
   * it could be replayed from (contracts/src/topics.ts). Checked every hour.
   */
  CONTENT_TOMBSTONE_RETENTION_DAYS: env.nonNegativeInt(TOMBSTONE_DAYS),
  /**
   * Days a report's tracking (content_reports, GET /api/v1/content/tracking/:id) is kept after it was
   * accepted; 0 keeps them for ever. Checked every hour.
   */
  CONTENT_REPORT_RETENTION_DAYS: env.nonNegativeInt(7),
  /**
   * /ready reports the outbox as degraded (an optional check, down) once its oldest unpublished row
   * is older than this: the relay is stalled or far behind.
   */
  OUTBOX_BACKLOG_DEGRADED_S: env.positiveInt(60),
  /** Entries the dead-letter index keeps (Postgres dead_letters); each new one beyond evicts the oldest. */
  DEAD_LETTER_MAX_ENTRIES: env.positiveInt(1000),
  /** Prefix of Redis keys (the content read cache); the gateway must use the same one. */
  REDIS_KEY_PREFIX: env.string('tp:'),
  /**
   * ContentChanged messages the planner handles at once (different entities; one entity's changes
   * one after another). Changes handled at the same time share one transaction (up to 100 each), so
   * this is also the planner's largest transaction; it holds one database connection.
   */
  PLANNER_CONCURRENCY: env.positiveInt(100),
  /**
   * TranslationCompleted messages the projection handles at once; writes that arrive together share
   * one statement, so this is also the projection's largest write.
   */
  PROJECTION_CONCURRENCY: env.positiveInt(200),
});

export type WorkerConfig = z.infer<typeof workerSettings>;

export const loadWorkerConfig = (source: NodeJS.ProcessEnv = process.env): WorkerConfig =>
  parseEnv(workerSettings, source);
