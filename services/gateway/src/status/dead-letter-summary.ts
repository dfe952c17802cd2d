import { DeadLetterEntry, type Orm } from '@tp/db';
import { z } from 'zod';

export const deadLettersSchema = z
  .object({
    count: z
      .int()
      .nullable()
      .meta({ description: 'Entries in the dead-letter index; null when unreadable.' }),
    latest: z.array(
      z.object({
        id: z.int(),
        original_topic: z.string(),
        error_code: z.string(),
        error_message: z.string(),
        failed_at: z.iso.datetime(),
      }),
    ),
    error: z.string().optional(),
  })
  .meta({ description: 'Dead-letter index: the count and the newest entries.' });

export type DeadLetterSummary = z.input<typeof deadLettersSchema>;

/** How many dead letters are indexed, and the newest few. Never throws: a status page must answer. */
export async function deadLetterSummary(orm: Orm, latest: number): Promise<DeadLetterSummary> {
  try {
    const em = orm.em.fork();
    const count = await em.count(DeadLetterEntry);
    const rows = await em.find(
      DeadLetterEntry,
      {},
      { orderBy: { failedAt: 'desc', id: 'desc' }, limit: latest },
    );
    return {
      count,
      latest: rows.map((row) => ({
        id: row.id,
        original_topic: row.originalTopic,
        error_code: row.errorCode,
        error_message: row.errorMessage,
        failed_at: row.failedAt.toISOString(),
      })),
    };
  } catch (err) {
    return { count: null, latest: [], error: err instanceof Error ? err.message : String(err) };
  }
}
