import { randomBytes } from 'node:crypto';

import { consumerGroup, topicName } from '@tp/contracts';
import { OutboxMessage, type Orm } from '@tp/db';
import type { IHeaders, Kafka } from 'kafkajs';

import type { RecordedRequest } from '../doubles/http-double.js';
import { waitFor } from './wait.js';

/**
 * How many messages each key has on `topic`, read from the beginning up to the high watermark of
 * every partition at the call, by a consumer group of its own (nothing is committed for it).
 */
export async function messagesPerKey(kafka: Kafka, topic: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await readTopic(kafka, topic, (key) => counts.set(key, (counts.get(key) ?? 0) + 1));
  return counts;
}

/**
 * Calls `onMessage` with each message's key and headers on `topic`, from the beginning up to the
 * high watermark of every partition at the call, by a consumer group of its own (nothing committed).
 */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  onMessage: (key: string, headers: IHeaders) => void,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map<number, bigint>();
  try {
    for (const p of await admin.fetchTopicOffsets(topic)) {
      if (BigInt(p.high) > BigInt(p.low)) ends.set(p.partition, BigInt(p.high));
    }
  } finally {
    await admin.disconnect();
  }
  if (ends.size === 0) return;
  const consumer = kafka.consumer({ groupId: `census-${randomBytes(6).toString('hex')}` });
  await consumer.connect();
  try {
    const done = new Set<number>();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const end = ends.get(partition);
        if (end === undefined || BigInt(message.offset) >= end) return;
        onMessage(message.key?.toString('utf8') ?? '', message.headers ?? {});
        if (BigInt(message.offset) + 1n >= end) done.add(partition);
      },
    });
    await waitFor(`every message of ${topic}`, () => done.size === ends.size, 60_000);
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Where the keys of `missing` (TranslationRequested keys with no stored row) are in the pipeline,
 * for a failure message: each one's messages on the request, retry and completed topics (with the
 * retry copies' attempt and due time), and every group's lag. A key requested but never completed
 * and not on the retry topic was dropped by the engine consumers; one completed but not stored, by
 * the projection; one on the retry topic with a due time ahead is waiting for its next try.
 */
export async function whereAreTheKeys(
  kafka: Kafka,
  prefix: string,
  missing: readonly string[],
): Promise<Record<string, unknown>> {
  const wanted = new Set(missing);
  const seen = new Map<string, string[]>(missing.map((key) => [key, []]));
  const topics = [
    ['requested', 'translationRequested'],
    ['retry', 'translationRequestedRetry'],
    ['completed', 'translationCompleted'],
  ] as const;
  for (const [stage, topic] of topics) {
    await readTopic(kafka, topicName(topic, prefix), (key, headers) => {
      if (!wanted.has(key)) return;
      const attempt = headers['tp-attempt']?.toString();
      const due = Number(headers['tp-not-before']?.toString());
      const when = Number.isFinite(due) && due > 0 ? ` due in ${Math.round((due - Date.now()) / 1000)}s` : '';
      seen.get(key)!.push(attempt === undefined ? stage : `${stage}#${attempt}${when}`);
    });
  }
  const lag: Record<string, number> = {};
  for (const [group, topic] of [
    ['planner', 'contentChanged'],
    ['engines', 'translationRequested'],
    ['enginesRetry', 'translationRequestedRetry'],
    ['projection', 'translationCompleted'],
  ] as const) {
    lag[group] = await consumerLag(kafka, consumerGroup(group, prefix), [topicName(topic, prefix)]);
  }
  return { lag, keys: Object.fromEntries(seen) };
}

/**
 * Messages on the group's topics it has not committed yet: 0 means it has consumed (and committed)
 * everything published so far. A partition the group never committed counts from its low watermark.
 */
export async function consumerLag(kafka: Kafka, groupId: string, topics: readonly string[]): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    let lag = 0n;
    const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
    for (const topic of topics) {
      const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
      for (const p of await admin.fetchTopicOffsets(topic)) {
        const at = mine.find((m) => m.partition === p.partition)?.offset ?? '-1';
        const from = BigInt(at) < 0n ? BigInt(p.low) : BigInt(at);
        lag += BigInt(p.high) - from;
      }
    }
    return Number(lag);
  } finally {
    await admin.disconnect();
  }
}

/** Requests an engine double received for `POST /translate` (its `requests`), per `<target> <text>`. */
export function engineRequestsPerText(requests: readonly RecordedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) {
    if (request.method !== 'POST' || request.path !== '/translate') continue;
    const body = request.body as { q?: unknown; target?: unknown } | undefined;
    // A batch sends its texts as an array of q: each text counts once per request.
    for (const q of Array.isArray(body?.q) ? body.q : [body?.q]) {
      const key = `${String(body?.target)} ${String(q)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * What an at-least-once step delivered more than once, for a log line: how many keys came more than
 * once, how many copies beyond the first in all, and up to three of those keys.
 */
export function duplicates(counts: ReadonlyMap<string, number>): {
  keys: number;
  extra: number;
  sample: string[];
} {
  const repeated = [...counts].filter(([, n]) => n > 1);
  return {
    keys: repeated.length,
    extra: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
    sample: repeated.slice(0, 3).map(([key, n]) => `${key} x${n}`),
  };
}

/**
 * The pipeline has nothing in flight: every outbox row is published, and the planner, the engine
 * consumers and the projection have committed every message of their topics (lag 0). A message may
 * move on between two of these reads, so the outbox's rows and the topics' ends must be the same
 * before and after them: every step's output (an outbox row, a message) shows in one or the other.
 */
export async function pipelineIdle(kafka: Kafka, orm: Orm, prefix: string): Promise<boolean> {
  const before = await progress(kafka, orm, prefix);
  if (before.unpublished !== 0) return false;
  const steps = [
    [consumerGroup('planner', prefix), topicName('contentChanged', prefix)],
    [consumerGroup('engines', prefix), topicName('translationRequested', prefix)],
    [consumerGroup('projection', prefix), topicName('translationCompleted', prefix)],
  ] as const;
  for (const [group, topic] of steps) if ((await consumerLag(kafka, group, [topic])) !== 0) return false;
  const after = await progress(kafka, orm, prefix);
  return JSON.stringify(after) === JSON.stringify(before);
}

/** Outbox rows (all, and unpublished) and the end offsets of the pipeline's topics. */
async function progress(kafka: Kafka, orm: Orm, prefix: string) {
  const em = orm.em.fork();
  const outbox = {
    total: await em.count(OutboxMessage, {}),
    unpublished: await em.count(OutboxMessage, { publishedAt: null }),
  };
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends: string[] = [];
    for (const key of ['contentChanged', 'translationRequested', 'translationCompleted'] as const) {
      for (const p of await admin.fetchTopicOffsets(topicName(key, prefix))) ends.push(p.high);
    }
    return {
      total: outbox.total,
      unpublished: outbox.unpublished,
      ends: ends.join(','),
    };
  } finally {
    await admin.disconnect();
  }
}
