// KafkaConsumer.startBatches and publishingBatchHandler on the real broker: batches of a partition's
// messages, one commit per batch, and what a batch publishes sent only when all of it was handled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';

import { testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { consumerLag } from '@tp/test/harness/topic-census';
import { waitFor } from '@tp/test/harness/wait';
import { KafkaConsumer } from './kafka-consumer.js';
import { KafkaProducer } from './kafka-producer.js';
import { onceAcknowledged, publishingBatchHandler } from './outgoing-batch.js';
import type { IncomingMessage, TopicMessages } from './port.js';
import { kafkaRequestsMetric } from './request-count.js';

const prefix = uniquePrefix('batches');
let kafka: Kafka;
let admin: Admin;
let producer: KafkaProducer;
let topicNo = 0;

beforeAll(async () => {
  kafka = testKafka('batches-int');
  admin = kafka.admin();
  await admin.connect();
  producer = new KafkaProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
});

async function newTopic(partitions = 3): Promise<string> {
  const topic = `${prefix}t${topicNo++}`;
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  return topic;
}

/** `count` messages `m<i>`, keyed `k<i mod keys>`, sent in one request. */
async function produce(topic: string, count: number, keys = 10): Promise<void> {
  await producer.send(
    topic,
    Array.from({ length: count }, (_, i) => ({
      key: `k${i % keys}`,
      value: Buffer.from(`m${i}`),
      headers: {},
    })),
  );
}

const text = (m: IncomingMessage) => m.value?.toString() ?? '';
const consumer = (groupId: string, topic: string) =>
  new KafkaConsumer(kafka, { groupId, topics: [topic], logger: silentLogger(), maxWaitTimeMs: 200 });

describe('KafkaConsumer.startBatches', () => {
  it('hands over each partition in offset order, at most maxBatch at a time, and commits what it handled', async () => {
    const topic = await newTopic();
    await produce(topic, 300);
    const batches: IncomingMessage[][] = [];
    const first = consumer(`${prefix}g1`, topic);
    await first.startBatches(async (messages) => void batches.push([...messages]), 40);
    await waitFor('300 messages in batches', async () => batches.flat().length >= 300);
    await first.stop();

    expect(batches.flat().map(text).sort()).toEqual(Array.from({ length: 300 }, (_, i) => `m${i}`).sort());
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(40);
      expect(new Set(batch.map((m) => m.partition)).size).toBe(1);
      const offsets = batch.map((m) => Number(m.offset));
      expect(offsets).toEqual(offsets.map((_, i) => (offsets[0] as number) + i));
    }
    expect(batches.some((batch) => batch.length > 1)).toBe(true);

    // The next member of the group starts after the commits: it gets only what is new.
    const later: string[] = [];
    const second = consumer(`${prefix}g1`, topic);
    await second.startBatches(async (messages) => void later.push(...messages.map(text)));
    await producer.send(topic, [{ key: 'k0', value: Buffer.from('after'), headers: {} }]);
    await waitFor('the new message', async () => later.includes('after'));
    await second.stop();
    expect(later).toEqual(['after']);
  });
});

describe('publishingBatchHandler', () => {
  it('sends what a batch published only once all of it was handled; a failed batch comes again whole', async () => {
    const [input, output] = [await newTopic(1), await newTopic(1)];
    await produce(input, 30);
    let failures = 0;
    const handled: string[] = [];
    const batchHandler = publishingBatchHandler(
      (out) => async (message) => {
        handled.push(text(message));
        // A transient failure of one message, the first time only: its whole batch is not handled.
        if (text(message) === 'm17' && failures++ === 0) throw new Error('transient');
        await out.send(output, [{ key: null, value: Buffer.from(`copy of ${text(message)}`), headers: {} }]);
      },
      producer,
      { concurrency: 4 },
    );
    const copies: string[] = [];
    const reader = consumer(`${prefix}reader`, output);
    await reader.start(async (message) => void copies.push(text(message)));
    const worker = consumer(`${prefix}worker`, input);
    await worker.startBatches(batchHandler, 100);
    await waitFor('30 copies', async () => copies.length >= 30);
    // Settled: the worker committed all of the input, so it will publish nothing more, and the reader
    // has every message the output holds by then; an extra copy would be among them.
    await waitFor(
      'the input committed',
      async () => (await consumerLag(kafka, `${prefix}worker`, [input])) === 0,
    );
    const [end] = await admin.fetchTopicOffsets(output);
    await waitFor('the whole output read', () => copies.length >= Number(end!.high));
    await Promise.all([worker.stop(), reader.stop()]);

    expect(failures).toBe(2);
    expect(handled.filter((m) => m === 'm0')).toHaveLength(2); // the batch was delivered again whole
    expect(copies.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `copy of m${i}`).sort());
  });

  it('runs what a handler left to onceAcknowledged after the batch was sent, and not for a send that failed', async () => {
    const [input, output] = [await newTopic(1), await newTopic(1)];
    await produce(input, 5);
    const effects: string[] = [];
    let sends = 0;
    // The first produce request fails, as during a broker restart; the batch comes again.
    const flaky = {
      sendBatch: (batches: readonly TopicMessages[]) => {
        sends += 1;
        return sends === 1 ? Promise.reject(new Error('broker gone')) : producer.sendBatch(batches);
      },
      checkFits: producer.checkFits.bind(producer),
    };
    const batchHandler = publishingBatchHandler(
      (out) => async (message) => {
        await out.send(output, [{ key: null, value: message.value ?? Buffer.alloc(0), headers: {} }]);
        onceAcknowledged(out, () => effects.push(text(message)));
      },
      flaky,
      { concurrency: 4 },
    );
    const worker = consumer(`${prefix}effects`, input);
    await worker.startBatches(batchHandler, 100);
    await waitFor('the batch sent', async () => effects.length >= 5);
    await worker.stop();

    expect(sends).toBe(2);
    expect(effects.sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('runs an effect at once for a producer whose send was awaited', async () => {
    const topic = await newTopic(1);
    let ran = false;
    await producer.send(topic, [{ key: null, value: Buffer.from('x'), headers: {} }]);
    onceAcknowledged(producer, () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('handles messages of different keys at once, and messages of one key in offset order', async () => {
    const topic = await newTopic(1);
    await produce(topic, 40, 4);
    const order = new Map<string, number[]>();
    let running = 0;
    let mostAtOnce = 0;
    const batchHandler = publishingBatchHandler(
      () => async (message) => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const key = message.key?.toString() ?? '';
        order.set(key, [...(order.get(key) ?? []), Number(message.offset)]);
        running -= 1;
      },
      producer,
      { concurrency: 4 },
    );
    const worker = consumer(`${prefix}keys`, topic);
    await worker.startBatches(batchHandler);
    await waitFor('40 messages', async () => [...order.values()].flat().length >= 40);
    await worker.stop();

    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(4);
    expect([...order.keys()].sort()).toEqual(['k0', 'k1', 'k2', 'k3']);
    for (const offsets of order.values()) expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });
});

describe('kafka_client_requests_total', () => {
  it('counts the produce and fetch requests of the process, by client kind and API', async () => {
    const registry = new Registry();
    kafkaRequestsMetric(registry);
    const count = async (client: string, api: string) =>
      (await registry.getSingleMetric('kafka_client_requests_total')?.get())?.values.find(
        (v) => v.labels.client === client && v.labels.api === api,
      )?.value ?? 0;
    const produced = await count('producer', 'Produce');
    const topic = await newTopic(1);
    await produce(topic, 5);
    expect(await count('producer', 'Produce')).toBe(produced + 1);

    const fetched = await count('consumer', 'Fetch');
    const batches = consumer(`${topic}.count`, topic);
    const seen: IncomingMessage[] = [];
    const running = batches.startBatches(async (messages) => {
      seen.push(...messages);
    });
    await waitFor('5 messages consumed', () => seen.length >= 5);
    await batches.stop();
    await running.catch(() => undefined);
    expect(await count('consumer', 'Fetch')).toBeGreaterThan(fetched);
  });
});
