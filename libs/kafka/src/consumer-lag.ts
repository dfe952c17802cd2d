import { withTimeout } from '@tp/runtime';
import type { Kafka } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';

/** How far a consumer group is behind on a topic. */
export interface ConsumerLag {
  readonly topic: string;
  readonly consumer_group: string;
  /** Messages not yet handled; null when Kafka could not be asked (then `error` says why). */
  readonly lag: number | null;
  readonly error?: string;
}

/**
 * The queue length as Kafka sees it: per partition, the end offset minus the group's committed
 * offset. A partition the group never committed counts from its low watermark (everything still
 * kept is waiting), and so does a commit older than what retention kept. Never throws: an
 * unreachable broker or an unknown topic gives `lag: null` and the reason.
 */
export async function consumerLag(
  kafka: Kafka | undefined,
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

/**
 * kafka_consumer_lag{group, topic}: each (group, topic) pair's lag, asked of Kafka at each scrape
 * (bounded by `timeoutMs`; an unanswered pair is left out of that scrape).
 */
export function consumerLagGauge(
  registry: Registry,
  kafka: Kafka,
  pairs: readonly { readonly group: string; readonly topic: string }[],
  timeoutMs = 2000,
): void {
  new Gauge({
    name: 'kafka_consumer_lag',
    help: 'Messages of a topic its consumer group has not handled yet (end offsets minus committed offsets)',
    labelNames: ['group', 'topic'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const lags = await Promise.all(
        pairs.map(({ group, topic }) => consumerLag(kafka, topic, group, timeoutMs)),
      );
      for (const { consumer_group: group, topic, lag } of lags) {
        if (lag !== null) this.set({ group, topic }, lag);
      }
    },
  });
}
