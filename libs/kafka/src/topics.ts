import type { TopicSpec } from '@tp/contracts';
import kafkajs, { type Admin } from 'kafkajs';

import { DEFAULT_MAX_MESSAGE_BYTES } from './message-size.js';

export interface EnsureTopicsResult {
  readonly created: string[];
  readonly existing: string[];
}

export interface ReplicationSettings {
  /** Copies of each partition (KAFKA_REPLICATION_FACTOR); -1 takes the broker's default.replication.factor. */
  readonly replicationFactor?: number;
  /** Copies that must have a message before it is acknowledged (topicReplication: all but one); unset: the broker's. */
  readonly minInsyncReplicas?: number;
}

/**
 * Creates the missing topics of the declarative list (contracts/src/topics.ts) with their partitions,
 * retention, replication and size headroom, and waits until every partition of every listed topic has a
 * leader. Existing topics are left as they are; a partition count lower than declared is reported,
 * never silently ignored.
 */
export async function ensureTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  prefix = '',
  timeoutMs = 30_000,
  replication: ReplicationSettings = {},
): Promise<EnsureTopicsResult> {
  const wanted = specs.map((s) => ({ ...s, name: `${prefix}${s.name}` }));
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((t) => !existing.has(t.name));
  if (missing.length > 0) {
    const clusterMax = missing.some((t) => t.extraMessageBytes)
      ? await clusterMaxMessageBytes(admin)
      : DEFAULT_MAX_MESSAGE_BYTES;
    // kafkajs's own waitForLeaders retries only LEADER_NOT_AVAILABLE; on KRaft a fresh topic can also
    // answer UNKNOWN_TOPIC_OR_PARTITION for a moment, so waitForLeaders below does the waiting.
    await admin.createTopics({
      waitForLeaders: false,
      timeout: timeoutMs,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        replicationFactor: replication.replicationFactor ?? -1,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'cleanup.policy', value: 'delete' },
          ...(replication.minInsyncReplicas === undefined
            ? []
            : [{ name: 'min.insync.replicas', value: String(replication.minInsyncReplicas) }]),
          ...(t.extraMessageBytes
            ? [{ name: 'max.message.bytes', value: String(clusterMax + t.extraMessageBytes) }]
            : []),
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

/** The `message.max.bytes` of the cluster's controller broker (every broker has the same, as a rule). */
async function clusterMaxMessageBytes(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  const broker = brokers[0];
  if (!broker) return DEFAULT_MAX_MESSAGE_BYTES;
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        type: kafkajs.ConfigResourceTypes.BROKER,
        name: String(broker.nodeId),
        configNames: ['message.max.bytes'],
      },
    ],
  });
  const value = Number(resources[0]?.configEntries[0]?.configValue);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_MESSAGE_BYTES;
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
