import type { Dependencies } from '@tp/platform';
import { withTimeout } from '@tp/runtime';
import { z } from 'zod';

export const queueSchema = z
  .object({
    topic: z.string(),
    consumer_group: z.string(),
    lag: z.int().nullable().meta({
      description:
        'Requests not yet handled: end offsets minus the committed offsets of the engine consumers. null when Kafka could not be asked.',
    }),
    error: z.string().optional(),
  })
  .meta({ description: 'Length of the translation queue.' });

export type ConsumerLag = z.input<typeof queueSchema>;

/**
 * The queue length as Kafka sees it: per partition, the end offset minus the group's committed
 * offset. A partition the group never committed counts from its low watermark (everything still
 * kept is waiting), and so does a commit older than what retention kept. Never throws: an
 * unreachable broker or an unknown topic gives `lag: null` and the reason.
 */
export async function consumerLag(
  kafka: Dependencies['kafka'],
  topic: string,
  group: string,
  timeoutMs: number,
): Promise<ConsumerLag> {
  const answer = { topic, consumer_group: group };
  if (!kafka) return { ...answer, lag: null, error: 'no Kafka client' };
  // A few quick retries ride out a stale leader (just after a topic was made); the timeout bounds all.
  const admin = kafka.admin({ retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 } });
  // One call after the other: a failed first call then leaves nothing running in the background.
  const work = (async () => {
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    const commits = new Map(committed?.partitions.map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((sum, { partition, high, low }) => {
      const start = Math.max(commits.get(partition) ?? -1, Number(low));
      return sum + Math.max(0, Number(high) - start);
    }, 0);
  })();
  let over = false;
  // Disconnects once the calls are over: after a timeout too, without holding the answer back.
  const closed = work
    .catch(() => undefined)
    .then(() => {
      over = true;
      return admin.disconnect();
    })
    .catch(() => undefined);
  try {
    const lag = await withTimeout(work, timeoutMs, `Kafka did not answer within ${timeoutMs} ms`);
    return { ...answer, lag };
  } catch (err) {
    return { ...answer, lag: null, error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (over) await closed;
  }
}
