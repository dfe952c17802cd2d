import { consumerGroup, topicName } from '@tp/contracts';
import { outboxBacklog, type Orm } from '@tp/db';
import { consumerLag } from '@tp/kafka';
import type { Dependencies } from '@tp/platform';
import { z } from 'zod';

const lagSchema = z.object({
  topic: z.string(),
  consumer_group: z.string(),
  lag: z.int().nullable().meta({
    description:
      'Messages not yet handled: end offsets minus committed offsets. null when Kafka could not be asked.',
  }),
  error: z.string().optional(),
});

export const queueSchema = z
  .object({
    length: z.int().nullable().meta({
      description:
        'Everything waiting: unpublished outbox rows plus the lag on the request topic and on the retry topic. null when a part could not be read.',
    }),
    outbox: z.object({
      unpublished: z.int().nullable().meta({ description: 'Outbox rows the relay has not published yet.' }),
      oldest_age_seconds: z
        .number()
        .nullable()
        .meta({ description: 'Age of the oldest of them (0 when none).' }),
      error: z.string().optional(),
    }),
    requested: lagSchema.meta({ description: 'The engine consumers on translation.requested.v1.' }),
    retry: lagSchema.meta({
      description:
        'The retry consumers on translation.requested.retry.v1 (requests waiting to be tried again).',
    }),
  })
  .meta({ description: 'Length of the translation queue (the spec\'s "queue length"), with its parts.' });

export type QueueLength = z.input<typeof queueSchema>;

/** The queue length and its parts; never throws (each part says why it is missing). */
export async function queueLength(
  orm: Orm,
  kafka: Dependencies['kafka'],
  topicPrefix: string,
  timeoutMs: number,
): Promise<QueueLength> {
  const [outbox, requested, retry] = await Promise.all([
    outboxBacklog(orm).then(
      (b) => ({ unpublished: b.rows, oldest_age_seconds: b.oldestAgeSeconds }),
      (err: unknown) => ({
        unpublished: null,
        oldest_age_seconds: null,
        error: err instanceof Error ? err.message : String(err),
      }),
    ),
    consumerLag(
      kafka,
      topicName('translationRequested', topicPrefix),
      consumerGroup('engines', topicPrefix),
      timeoutMs,
    ),
    consumerLag(
      kafka,
      topicName('translationRequestedRetry', topicPrefix),
      consumerGroup('enginesRetry', topicPrefix),
      timeoutMs,
    ),
  ]);
  const parts = [outbox.unpublished, requested.lag, retry.lag];
  const length = parts.every((n) => n !== null) ? parts.reduce<number>((sum, n) => sum + (n ?? 0), 0) : null;
  return { length, outbox, requested, retry };
}
