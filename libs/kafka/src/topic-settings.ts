import { env } from '@tp/runtime';
import { z } from 'zod';

/** The settings of `npm run topics` (create-topics.cli.ts), listed in docs/configuration.md. */
export const topicSettings = {
  KAFKA_REPLICATION_FACTOR: z.coerce
    .number()
    .int()
    .min(-1)
    .default(-1)
    .describe(
      "copies of each partition of the topics `npm run topics` creates; -1 = the broker's default (3 for a 3-broker cluster)",
    ),
  KAFKA_MIN_INSYNC_REPLICAS: env
    .nonNegativeInt(0)
    .describe(
      "copies that must hold a message before it is acknowledged; 0 = the broker's `min.insync.replicas`",
    ),
};
