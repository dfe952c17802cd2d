import type { TopicSpec } from '@tp/contracts';
import type { Admin } from 'kafkajs';

export interface EnsureTopicsResult {
  readonly created: string[];
  readonly existing: string[];
}

/**
 * Creates the missing topics of the declarative list (contracts/src/topics.ts) with their partitions and
 * retention, and waits until every partition of every listed topic has a leader. Existing topics are
 * left as they are; a partition count lower than declared is reported, never silently ignored.
 */
export async function ensureTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  prefix = '',
  timeoutMs = 30_000,
): Promise<EnsureTopicsResult> {
  const wanted = specs.map((s) => ({ ...s, name: `${prefix}${s.name}` }));
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((t) => !existing.has(t.name));
  if (missing.length > 0) {
    // kafkajs's own waitForLeaders retries only LEADER_NOT_AVAILABLE; on KRaft a fresh topic can also
    // answer UNKNOWN_TOPIC_OR_PARTITION for a moment, so waitForLeaders below does the waiting.
    await admin.createTopics({
      waitForLeaders: false,
      timeout: timeoutMs,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        replicationFactor: -1,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'cleanup.policy', value: 'delete' },
        ],
      })),
    });
  }
  await waitForLeaders(admin, wanted, timeoutMs);
  return {
    created: missing.map((t) => t.name),
    existing: wanted.filter((t) => existing.has(t.name)).map((t) => t.name),
  };
}

async function waitForLeaders(admin: Admin, topics: readonly TopicSpec[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const metadata = await fetchMetadata(admin, topics);
    if (!metadata) {
      if (Date.now() > deadline) throw new Error(`topics not visible after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const short = metadata.flatMap((m) => {
      const spec = topics.find((t) => t.name === m.name);
      return spec && m.partitions.length < spec.partitions
        ? [`${m.name} has ${m.partitions.length} partitions, ${spec.partitions} declared`]
        : [];
    });
    if (short.length > 0) throw new Error(short.join('; '));
    const leaderless = metadata.filter((m) => m.partitions.some((p) => p.leader < 0));
    if (leaderless.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`no leader after ${timeoutMs} ms for ${leaderless.map((m) => m.name).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const PROPAGATING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** Topic metadata, or undefined while freshly created topics are still propagating. */
async function fetchMetadata(admin: Admin, topics: readonly TopicSpec[]) {
  try {
    return (await admin.fetchTopicMetadata({ topics: topics.map((t) => t.name) })).topics;
  } catch (err) {
    if (PROPAGATING.has((err as { type?: string }).type ?? '')) return undefined;
    throw err;
  }
}
