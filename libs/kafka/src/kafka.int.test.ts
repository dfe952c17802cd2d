import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ALL_TOPICS,
  HEADERS,
  topicName,
  type ContentChanged,
  type TranslationCompleted,
} from '@tp/contracts';
import { EventCodec, newEvent } from '@tp/schemas';
import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';

import { silentLogger } from '@tp/test/harness/logger';
import { testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { waitFor } from '@tp/test/harness/wait';
import { consumersCheck, consumersGauge } from './consumer-health.js';
import { KafkaConsumer } from './kafka-consumer.js';
import { KafkaProducer } from './kafka-producer.js';
import type { IncomingMessage, OutgoingMessage } from './port.js';
import { ensureTopics } from './topics.js';

const codec = new EventCodec();
let kafka: Kafka;
let admin: Admin;
let producer: KafkaProducer;
const prefix = uniquePrefix('kafka');

beforeAll(async () => {
  kafka = testKafka('kafka-int');
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix);
  producer = new KafkaProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await producer.disconnect();
  await admin.deleteTopics({ topics: ALL_TOPICS.map((t) => `${prefix}${t.name}`) }).catch(() => undefined);
  await admin.disconnect();
});

function contentChanged(i: number): ContentChanged {
  return newEvent(
    'ContentChanged',
    {
      module: 'catalog',
      entityType: 'vendor',
      entityId: `v-${i}`,
      sourceLang: 'zh-CN',
      sourceVersion: i,
      fields: [{ name: 'name', text: `供应商 ${i}`, format: 'text' }],
    },
    { correlationId: `corr-${i}` },
  );
}

function encoded(event: ContentChanged): OutgoingMessage {
  return { key: `${event.data.entityType}:${event.data.entityId}`, ...codec.encode(event) };
}

/** Starts a consumer that records what it handled; `failOn` makes the handler throw for one entity. */
async function collect(
  groupId: string,
  topic: string,
  options: { failOn?: string; commitEvery?: number; delayMs?: number } = {},
) {
  const seen: IncomingMessage[] = [];
  const consumer = new KafkaConsumer(kafka, {
    groupId,
    topics: [topic],
    logger: silentLogger(),
    ...(options.commitEvery ? { commitEvery: options.commitEvery } : {}),
  });
  await consumer.start(async (message) => {
    const event = codec.decode(message.value, message.headers) as ContentChanged;
    if (event.data.entityId === options.failOn) throw new Error('handler failed');
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    seen.push(message);
  });
  return { seen, consumer };
}

async function createTopic(name: string, partitions: number): Promise<void> {
  await ensureTopics(admin, [
    { name, partitions, retentionMs: 3_600_000, events: ['ContentChanged'], description: 'test topic' },
  ]);
}

const ids = (messages: IncomingMessage[]) =>
  messages.map((m) => (codec.decode(m.value, m.headers) as ContentChanged).data.entityId);

async function committedTotal(groupId: string, topic: string): Promise<number> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return (offsets?.partitions ?? []).reduce((sum, p) => sum + Math.max(Number(p.offset), 0), 0);
}

describe('topics', () => {
  it('creates every declared topic with its partitions and retention, and reports them as existing next time', async () => {
    const own = uniquePrefix('topics');
    const first = await ensureTopics(admin, ALL_TOPICS, own);
    expect(first.created.sort()).toEqual(ALL_TOPICS.map((t) => `${own}${t.name}`).sort());
    const second = await ensureTopics(admin, ALL_TOPICS, own);
    expect(second.created).toEqual([]);

    const { topics } = await admin.fetchTopicMetadata({ topics: [topicName('contentChanged', own)] });
    expect(topics[0]?.partitions).toHaveLength(ALL_TOPICS[0]!.partitions);
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: topicName('deadLetter', own), configNames: ['retention.ms'] }],
    });
    expect(configs.resources[0]?.configEntries[0]?.configValue).toBe(String(30 * 24 * 3600 * 1000));
    await admin.deleteTopics({ topics: first.created });
  });
});

describe('Avro over Kafka', () => {
  it('round-trips an Avro event with its key and headers through the broker', async () => {
    const topic = topicName('contentChanged', prefix);
    const event = contentChanged(1);
    await producer.send(topic, [encoded(event)]);
    const { seen, consumer } = await collect(`${prefix}roundtrip`, topic);
    await waitFor('the event', () => seen.length >= 1);
    await consumer.stop();

    const [message] = seen;
    expect(message?.key?.toString()).toBe('vendor:v-1');
    expect(message?.headers[HEADERS.eventId]?.toString()).toBe(event.eventId);
    expect(codec.decode(message!.value, message!.headers)).toEqual({
      ...event,
      eventVersion: codec.registry.latest('ContentChanged').version,
    });
  });

  it('delivers a message written with v1 of a schema to the latest reader', async () => {
    const topic = topicName('translationCompleted', prefix);
    const v1 = codec.registry.versions('TranslationCompleted')[0]!;
    const v1Event = {
      eventId: '4a3c1c5e-3b1c-4c36-9a40-5b8c1c0e7a11',
      eventType: 'TranslationCompleted',
      eventVersion: 1,
      occurredAt: 1_700_000_000_000,
      correlationId: 'corr-v1',
      causationId: null,
      data: {
        entityType: 'vendor',
        entityId: 'v-1',
        field: 'name',
        sourceLang: 'zh-CN',
        targetLang: 'en',
        translatedText: 'Supplier 1',
        sourceHash: 'b'.repeat(64),
        sourceVersion: 1,
        engine: 'deepl',
      },
    };
    // An older producer: writes with v1 and names v1 in the header.
    await producer.send(topic, [
      {
        key: 'vendor:v-1:name:en',
        value: v1.type.toBuffer(v1Event),
        headers: { [HEADERS.schemaFingerprint]: v1.fingerprint },
      },
    ]);
    const received: TranslationCompleted[] = [];
    const consumer = new KafkaConsumer(kafka, {
      groupId: `${prefix}v2-reader`,
      topics: [topic],
      logger: silentLogger(),
    });
    await consumer.start(async (m) => {
      received.push(codec.decode(m.value, m.headers) as TranslationCompleted);
    });
    await waitFor('the v1 message', () => received.length >= 1);
    await consumer.stop();

    expect(codec.registry.latest('TranslationCompleted').version).toBe(6);
    expect(received[0]).toEqual({
      ...v1Event,
      data: {
        ...v1Event.data,
        truncated: false,
        detectedSourceLang: null,
        requestedAt: 0,
        fallback: false,
        moreResults: [],
        failures: [],
      },
    });
  });
});

describe('consumer offsets', () => {
  it('a group stopped mid-stream resumes from its committed offset: every message handled, none twice', async () => {
    const topic = `${prefix}resume`;
    await createTopic(topic, 3);
    const groupId = `${prefix}resume-group`;
    await producer.send(
      topic,
      Array.from({ length: 300 }, (_, i) => encoded(contentChanged(i))),
    );

    // A slow handler (5 ms a message), so the stop always comes before the 300th message.
    const first = await collect(groupId, topic, { commitEvery: 10, delayMs: 5 });
    await waitFor('part of the stream', () => first.seen.length >= 50);
    await first.consumer.stop();
    const handledFirst = first.seen.length;
    expect(handledFirst).toBeLessThan(300);
    expect(await committedTotal(groupId, topic)).toBe(handledFirst);

    const second = await collect(groupId, topic);
    await waitFor('the rest of the stream', () => handledFirst + second.seen.length >= 300);
    await second.consumer.stop();

    const all = [...ids(first.seen), ...ids(second.seen)];
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
    expect(await committedTotal(groupId, topic)).toBe(300);
  });

  it('does not commit a message whose handler failed, so a restarted group gets it again', async () => {
    const topic = `${prefix}failing`;
    await createTopic(topic, 1);
    const groupId = `${prefix}failing-group`;
    await producer.send(
      topic,
      Array.from({ length: 10 }, (_, i) => encoded(contentChanged(i))),
    );

    const failing = await collect(groupId, topic, { failOn: 'v-5' });
    await waitFor('the messages before the failure', () => failing.seen.length >= 5);
    await waitFor(
      'the commit of the successful prefix',
      async () => (await committedTotal(groupId, topic)) === 5,
    );
    await failing.consumer.stop();
    expect(ids(failing.seen)).toEqual(['v-0', 'v-1', 'v-2', 'v-3', 'v-4']);

    const fixed = await collect(groupId, topic);
    await waitFor('the redelivery', () => fixed.seen.length >= 5);
    await fixed.consumer.stop();
    expect(ids(fixed.seen)).toEqual(['v-5', 'v-6', 'v-7', 'v-8', 'v-9']);
  });

  it('gets a message again in the same process after its handler threw a TypeError (kafkajs would stop the consumer for good)', async () => {
    const topic = `${prefix}type-error`;
    await createTopic(topic, 1);
    await producer.send(
      topic,
      Array.from({ length: 4 }, (_, i) => encoded(contentChanged(i))),
    );
    const seen: string[] = [];
    let failed = 0;
    const consumer = new KafkaConsumer(kafka, {
      groupId: `${prefix}type-error-group`,
      topics: [topic],
      logger: silentLogger(),
    });
    await consumer.start(async (message) => {
      const id = (codec.decode(message.value, message.headers) as ContentChanged).data.entityId;
      if (id === 'v-1' && failed < 2) {
        failed += 1;
        throw new TypeError("Cannot read properties of undefined (reading 'name')");
      }
      seen.push(id);
    });
    try {
      await waitFor('every message, v-1 after two failures', () => seen.length >= 4, 20_000);
    } finally {
      await consumer.stop();
    }
    expect(seen).toEqual(['v-0', 'v-1', 'v-2', 'v-3']);
    expect(failed).toBe(2);
  });
});

describe('consumer health', () => {
  it('is starting, then consuming once in its group, then stopped; readiness names a group that is not consuming, the gauge says 0, the rebalances counter counts the join', async () => {
    const topic = `${prefix}health`;
    await createTopic(topic, 1);
    const groupId = `${prefix}health-group`;
    const consumer = new KafkaConsumer(kafka, { groupId, topics: [topic], logger: silentLogger() });
    const ready = consumersCheck('consumers', true, () => [consumer]);
    const registry = new Registry();
    consumersGauge(registry, () => [consumer]);
    const gauge = async () =>
      (await registry.metrics()).match(/^kafka_consumer_consuming\{group="([^"]+)"\} (\d)$/m)?.slice(1);
    const joins = async () =>
      (await registry.metrics()).match(/^kafka_consumer_rebalances_total\{group="[^"]+"\} (\d+)$/m)?.[1];
    expect(consumer.health()).toEqual({ groupId, state: 'starting', joins: 0 });
    expect(await joins()).toBe('0');
    await expect(ready.check()).rejects.toThrow(`${groupId}: starting`);
    expect(await gauge()).toEqual([groupId, '0']);

    await consumer.start(async () => undefined);
    await waitFor('the group join', () => consumer.health().state === 'consuming', 15_000);
    await expect(ready.check()).resolves.toBeUndefined();
    expect(await gauge()).toEqual([groupId, '1']);
    expect(await joins()).toBe('1');

    await consumer.stop();
    expect(consumer.health()).toEqual({ groupId, state: 'stopped', joins: 1 });
    await expect(ready.check()).rejects.toThrow(`${groupId}: stopped`);
    expect(await gauge()).toEqual([groupId, '0']);
  });

  it('is not ready with no consumer at all', async () => {
    await expect(consumersCheck('consumers', true, () => []).check()).rejects.toThrow(
      'no consumer has started',
    );
  });
});
