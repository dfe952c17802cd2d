import { TOPICS } from '@tp/contracts';
import { COMMON_TUNING, commonSettings, portSetting } from '@tp/platform';
import { configLoader, env } from '@tp/runtime';
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

/** Worker settings (environment variables); every one is listed in docs/configuration.md. */
export const workerSettings = z.object({
  ...commonSettings,
  PORT: portSetting(3006),
  TEXT_TRANSLATION_RETENTION_DAYS: env
    .nonNegativeInt(30)
    .describe(
      'days a stored translation of free text (entity type `text`, from `POST /api/v1/translate`) is kept after its last update; 0 = kept',
    ),
});

/**
 * Named constants of the worker (only benches ever changed them; tests shorten them in-process):
 * - OUTBOX_POLL_INTERVAL_MS: how often the outbox relay looks for rows to publish (one worker
 *   publishes at a time): 100 ms adds at most that to a result's way to Kafka, for one small query;
 * - OUTBOX_BATCH_SIZE: rows one relay batch publishes (one transaction, one produce request a topic);
 * - OUTBOX_RETENTION_HOURS: rows an older release marked published are purged after a day;
 * - OUTBOX_BACKLOG_DEGRADED_S: `/ready` shows the outbox degraded once its oldest row waits a minute;
 * - DEAD_LETTER_MAX_ENTRIES: the dead-letter index keeps the newest 1000 (the spec's number);
 * - PLANNER_CONCURRENCY: changes handled at once, which share one transaction of up to 100;
 * - PROJECTION_CONCURRENCY: results handled at once, written by one statement;
 * - CONTENT_TOMBSTONE_RETENTION_DAYS: a deleted entity's tombstone is kept as long as the longest
 *   retention of the topics that can still deliver an older event for it (shorter would let a late
 *   event bring the entity back);
 * - CONTENT_REPORT_RETENTION_DAYS: a report's tracking (`GET /api/v1/content/tracking/{id}`) is kept a
 *   week, long past the pipeline's work on it.
 */
export const WORKER_TUNING = {
  OUTBOX_POLL_INTERVAL_MS: 100,
  OUTBOX_BATCH_SIZE: 500,
  OUTBOX_RETENTION_HOURS: 24,
  OUTBOX_BACKLOG_DEGRADED_S: 60,
  DEAD_LETTER_MAX_ENTRIES: 1000,
  PLANNER_CONCURRENCY: 100,
  PROJECTION_CONCURRENCY: 200,
  CONTENT_TOMBSTONE_RETENTION_DAYS: TOMBSTONE_DAYS,
  CONTENT_REPORT_RETENTION_DAYS: 7,
  ...COMMON_TUNING,
};

export const loadWorkerConfig = configLoader(workerSettings, WORKER_TUNING);

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
