import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** Worker settings (environment variables); documented in README "Configuration". */
export const workerSettings = z.object({
  ...commonSettings,
  /** Health and metrics only. */
  PORT: env.port(3006),
  OUTBOX_BATCH_SIZE: env.positiveInt(500),
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(100),
  /** Published outbox rows are deleted after this many hours. */
  OUTBOX_RETENTION_HOURS: env.positiveInt(24),
});

export type WorkerConfig = z.infer<typeof workerSettings>;

export const loadWorkerConfig = (source: NodeJS.ProcessEnv = process.env): WorkerConfig =>
  parseEnv(workerSettings, source);
