import { z } from 'zod';

import type { ReplicationSettings } from './topics.js';

/** The settings of `npm run topics` (create-topics.cli.ts), listed in docs/configuration.md. */
export const topicSettings = {
  KAFKA_REPLICATION_FACTOR: z.coerce
    .number()
    .int()
    .min(-1)
    .default(-1)
    .describe(
      "copies of each partition of the topics `npm run topics` creates; -1 = the broker's default (3 for a 3-broker cluster). With 2 or more, a message is acknowledged once all copies but one hold it (`min.insync.replicas`), so one broker may be down; with -1 the broker's `min.insync.replicas` applies",
    ),
};

/**
 * The replication of the topics `npm run topics` creates, from KAFKA_REPLICATION_FACTOR: the copies,
 * and all of them but one in sync before a message is acknowledged (producers ask for all in-sync
 * replicas), which lets one broker be down without losing an acknowledged message. -1 leaves both to
 * the broker.
 */
export function topicReplication(replicationFactor: number): ReplicationSettings {
  if (replicationFactor < 1) return { replicationFactor: -1 };
  return { replicationFactor, minInsyncReplicas: Math.max(1, replicationFactor - 1) };
}
