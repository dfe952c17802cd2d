import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { connectDatabase, DeadLetterEntry, type Orm } from '@tp/db';
import { KafkaConsumer, KafkaProducer, type IncomingMessage, type OutgoingMessage } from '@tp/kafka';
import { deadLetterMessage, DeadLetterIndex, REPLAYED_FROM_HEADER } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import { EventCodec, headerString } from '@tp/schemas';
import type { Kafka } from 'kafkajs';
import { Registry } from 'prom-client';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { untranslatableRequest } from '@tp/test/harness/dead-letters';
import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { OutboxRelay } from '../outbox-relay/outbox-relay.js';
import { deadLetterIndexer } from './index-dead-letters.js';

// The indexer on the real dead-letter topic (a prefix of this file's own) and a database of its own.
// Dead letters are produced exactly as the guard produces them (deadLetterMessage).
const codec = new EventCodec();
const prefix = uniquePrefix('dlq-index');
const dlqTopic = topicName('deadLetter', prefix);
const requestTopic = topicName('translationRequested', prefix);
let db: TestDatabase;
let orm: Orm;
let kafka: Kafka;
let producer: KafkaProducer;
let index: DeadLetterIndex;
let indexer: BackgroundTask;
const metrics = new Registry();

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
  kafka = testKafka('dlq-index-int');
  await createTopics(kafka, prefix);
  producer = new KafkaProducer(kafka);
  await producer.connect();
  index = new DeadLetterIndex(orm);
  indexer = deadLetterIndexer({ kafka, index, codec, logger: silentLogger(), metrics, topicPrefix: prefix });
  await indexer.start();
});

afterAll(async () => {
  await indexer?.stop();
  await producer?.disconnect();
  await orm?.close(true);
  await db?.drop();
});

const metric = async (name: string): Promise<number> =>
  (await metrics.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;

let nextOffset = 0;

/** A failed TranslationRequested message as the engine consumer read it, at its own offset. */
function failedRequest(entityId = `v-${nextOffset}`): IncomingMessage {
  const event = untranslatableRequest(entityId);
  const { value, headers } = codec.encode(event);
  return {
    topic: requestTopic,
    partition: 0,
    offset: String(nextOffset++),
    key: Buffer.from(`vendor:${entityId}:name:xx`),
    value,
    headers,
    timestamp: String(Date.now()),
  };
}

const failure = { code: 'UNSUPPORTED_LANGUAGE', message: 'xx is not a language', attempts: 1 };
const dead = (message: IncomingMessage): OutgoingMessage =>
  deadLetterMessage(codec, message, failure, 'translator.engines');

async function produce(messages: readonly OutgoingMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 250) await producer.send(dlqTopic, messages.slice(i, i + 250));
}

describe('dead-letter indexer', () => {
  it('indexes a dead letter delivered twice as one entry', async () => {
    const message = failedRequest();
    const letter = dead(message);
    await produce([letter, letter]);
    // A third message after the duplicate shows that both were handled.
    await produce([dead(failedRequest())]);
    await waitFor('both dead letters indexed', async () => (await index.count()) === 2);
    await waitFor(
      'the indexer to pass the duplicate',
      async () => (await metric('dead_letters_indexed_total')) === 2,
    );
    const entries = await orm.em.fork().find(DeadLetterEntry, {}, { orderBy: { id: 'asc' } });
    expect(entries[0]).toMatchObject({
      originalTopic: requestTopic,
      originalOffset: Number(message.offset),
      consumerGroup: 'translator.engines',
      errorCode: 'UNSUPPORTED_LANGUAGE',
      eventId: headerString(message.headers, 'tp-event-id'),
    });
    expect(Buffer.from(entries[0]!.payload).equals(message.value!)).toBe(true);
    expect(await metric('dead_letters_index_size')).toBe(2);
  });

  it('skips a message that is not a dead letter, and keeps indexing after it', async () => {
    const before = await index.count();
    await producer.send(dlqTopic, [{ key: null, value: Buffer.from('garbage'), headers: {} }]);
    await produce([dead(failedRequest())]);
    await waitFor('the next dead letter indexed', async () => (await index.count()) === before + 1);
    expect(await metric('dead_letters_unreadable_total')).toBe(1);
  });

  it('keeps 1000 entries: the 1001st evicts the oldest, counted in dead_letters_evicted_total', async () => {
    await index.purge({ all: true });
    const indexedBefore = await metric('dead_letters_indexed_total');
    const letters = Array.from({ length: 1001 }, () => dead(failedRequest()));
    await produce(letters.slice(0, 1000));
    await waitFor(
      '1000 entries',
      async () => (await metric('dead_letters_indexed_total')) === indexedBefore + 1000,
      60_000,
    );
    const [oldest] = await orm.em.fork().find(DeadLetterEntry, {}, { orderBy: { id: 'asc' }, limit: 1 });
    expect(await metric('dead_letters_evicted_total')).toBe(0);

    await produce(letters.slice(1000));
    await waitFor(
      'the 1001st',
      async () => (await metric('dead_letters_indexed_total')) === indexedBefore + 1001,
    );
    expect(await metric('dead_letters_evicted_total')).toBe(1);
    expect(await index.count()).toBe(1000);
    expect(await index.get(oldest!.id)).toBeUndefined();
    expect(await metric('dead_letters_index_size')).toBe(1000);
  }, 90_000);

  it('replays an entry to its original topic with its key, bytes and headers, through the outbox', async () => {
    await index.purge({ all: true });
    const message = failedRequest('v-replay');
    await produce([dead(message)]);
    await waitFor('the dead letter indexed', async () => (await index.count()) === 1);
    const [entry] = await index.list({ limit: 1 });

    expect(await index.replay({ ids: [entry!.id] })).toMatchObject({ replayed: 1 });
    expect(await index.count()).toBe(0);

    const received: IncomingMessage[] = [];
    const consumer = new KafkaConsumer(kafka, {
      groupId: `${prefix}replay-check`,
      topics: [requestTopic],
      logger: silentLogger(),
    });
    await consumer.start(async (m) => {
      received.push(m);
    });
    const relay = new OutboxRelay(orm, producer, {
      batchSize: 10,
      pollIntervalMs: 20,
      retentionMs: 60_000,
      logger: silentLogger(),
      deadLetters: index,
    });
    expect(await relay.relayOnce()).toBe(1);
    await waitFor('the replayed message', () => received.length === 1);
    await consumer.stop();

    const [replayed] = received;
    expect(replayed!.key?.toString()).toBe(message.key!.toString());
    expect(replayed!.value?.equals(message.value!)).toBe(true);
    for (const [name, value] of Object.entries(message.headers)) {
      expect(headerString(replayed!.headers, name)).toBe(String(value));
    }
    expect(headerString(replayed!.headers, REPLAYED_FROM_HEADER)).toBe(String(entry!.id));
  });
});
