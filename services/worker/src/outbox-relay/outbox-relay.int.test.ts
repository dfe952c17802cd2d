import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_TOPICS, topicName, type ContentChanged } from '@tp/contracts';
import { addToOutbox, connectDatabase, OutboxMessage, SourceContent, type Orm } from '@tp/db';
import {
  ensureTopics,
  KafkaConsumer,
  KafkaProducer,
  type MessageProducer,
  type OutgoingMessage,
} from '@tp/kafka';
import { EventCodec, newEvent } from '@tp/schemas';
import type { Kafka } from 'kafkajs';

import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';
import { testKafka, uniquePrefix } from '../../../../test/harness/kafka.js';
import { silentLogger } from '../../../../test/harness/logger.js';
import { waitFor } from '../../../../test/harness/wait.js';
import { OutboxRelay } from './outbox-relay.js';

const codec = new EventCodec();
const prefix = uniquePrefix('outbox');
const topic = topicName('contentChanged', prefix);
let db: TestDatabase;
let orm: Orm;
let kafka: Kafka;
let producer: KafkaProducer;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
  kafka = testKafka('outbox-int');
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix);
  await admin.disconnect();
  producer = new KafkaProducer(kafka);
});

afterAll(async () => {
  await producer.disconnect();
  await orm.close(true);
  await db.drop();
});

const relayOptions = { batchSize: 3, pollIntervalMs: 20, retentionMs: 60_000, logger: silentLogger() };

/** A command: stores source content and its ContentChanged event in one transaction. */
async function storeContent(entityId: string, fail = false): Promise<ContentChanged> {
  const event = newEvent(
    'ContentChanged',
    {
      module: 'catalog',
      entityType: 'vendor',
      entityId,
      sourceLang: 'zh-CN',
      sourceVersion: 1,
      fields: [{ name: 'name', text: '你好' }],
    },
    { correlationId: entityId },
  );
  await orm.em.fork().transactional(async (em) => {
    em.create(SourceContent, {
      module: 'catalog',
      entityType: 'vendor',
      entityId,
      field: 'name',
      sourceLang: 'zh-CN',
      text: '你好',
      sourceHash: 'h',
      sourceVersion: 1,
    });
    addToOutbox(em, codec, [{ topic, key: `vendor:${entityId}`, event }]);
    await em.flush();
    if (fail) throw new Error('command failed after its writes');
  });
  return event;
}

async function consumeAll(groupId: string): Promise<{ ids: string[]; stop: () => Promise<void> }> {
  const ids: string[] = [];
  const consumer = new KafkaConsumer(kafka, { groupId, topics: [topic], logger: silentLogger() });
  await consumer.start(async (m) => {
    ids.push(codec.decode(m.value, m.headers).eventId);
  });
  return { ids, stop: () => consumer.stop() };
}

/** Publishes for real, then dies before the relay can mark the rows: the crash window of the pattern. */
class CrashAfterSend implements MessageProducer {
  constructor(private readonly inner: MessageProducer) {}
  async send(t: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.inner.send(t, messages);
    throw new Error('relay process died after publishing');
  }
  disconnect = () => Promise.resolve();
}

describe('outbox relay', () => {
  it('publishes exactly the committed events, survives a relay crash, and marks every row', async () => {
    const committed = [await storeContent('v-1'), await storeContent('v-2')];
    await expect(storeContent('v-rolled-back', true)).rejects.toThrow('command failed');
    committed.push(await storeContent('v-3'), await storeContent('v-4'));

    const em = orm.em.fork();
    expect(await em.count(OutboxMessage, {})).toBe(4);
    expect(await em.count(SourceContent, { entityId: 'v-rolled-back' })).toBe(0);

    // First relay: publishes the first batch, then crashes before marking it.
    const crashing = new OutboxRelay(orm, new CrashAfterSend(producer), relayOptions);
    await expect(crashing.relayOnce()).rejects.toThrow('relay process died');
    expect(await orm.em.fork().count(OutboxMessage, { publishedAt: null })).toBe(4);

    // A new relay takes over and publishes everything, the crashed batch again included.
    const relay = new OutboxRelay(orm, producer, relayOptions);
    await relay.start();
    await waitFor(
      'all rows published',
      async () => (await orm.em.fork().count(OutboxMessage, { publishedAt: null })) === 0,
    );
    await relay.stop();

    const consumed = await consumeAll(`${prefix}check`);
    const committedIds = committed.map((e) => e.eventId);
    await waitFor('every committed event', () => committedIds.every((id) => consumed.ids.includes(id)));
    await consumed.stop();

    expect(new Set(consumed.ids)).toEqual(new Set(committedIds));
    // Only the batch in flight at the crash is duplicated (batch size 3).
    expect(consumed.ids.length).toBe(committedIds.length + relayOptions.batchSize);
  });

  it('deletes published rows only after the retention period', async () => {
    await storeContent('v-old');
    const relay = new OutboxRelay(orm, producer, relayOptions);
    while ((await relay.relayOnce()) > 0);
    expect(await relay.purgePublished(Date.now())).toBe(0);
    const purged = await relay.purgePublished(Date.now() + 61_000);
    expect(purged).toBeGreaterThan(0);
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });
});
