import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_TOPICS, topicName, type ContentChanged } from '@tp/contracts';
import { connectDatabase, insertIntoOutbox, OutboxMessage, SourceContent, type Orm } from '@tp/db';
import {
  ensureTopics,
  KafkaConsumer,
  KafkaProducer,
  type IncomingMessage,
  type TopicMessages,
} from '@tp/kafka';
import { DeadLetterIndex } from '@tp/pipeline';
import { EventCodec, newEvent } from '@tp/schemas';
import kafkajs, { type Kafka } from 'kafkajs';
import pg from 'pg';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { outboxBacklogCheck } from './outbox-backlog.js';
import { OutboxRelay, type RelayProducer } from './outbox-relay.js';

const codec = new EventCodec();
const prefix = uniquePrefix('outbox');
const topic = topicName('contentChanged', prefix);
let db: TestDatabase;
let orm: Orm;
let kafka: Kafka;
let producer: KafkaProducer;
let sql: pg.Pool;
/** A topic that takes messages of at most SMALL_LIMIT bytes (max.message.bytes), as a cluster may. */
const smallTopic = `${prefix}small`;
const SMALL_LIMIT = 16 * 1024;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  kafka = testKafka('outbox-int');
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix);
  // ensureTopics waits for the leaders (kafkajs's own wait gives up on a fresh KRaft topic).
  await ensureTopics(
    admin,
    [{ name: 'small', partitions: 3, retentionMs: 3_600_000, events: [], description: '' }],
    prefix,
  );
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: kafkajs.ConfigResourceTypes.TOPIC,
        name: smallTopic,
        configEntries: [{ name: 'max.message.bytes', value: String(SMALL_LIMIT) }],
      },
    ],
  });
  await admin.disconnect();
  producer = new KafkaProducer(kafka);
});

afterAll(async () => {
  await producer.disconnect();
  await sql.end();
  await orm.close(true);
  await db.drop();
});

const relayOptions = () => ({
  batchSize: 3,
  pollIntervalMs: 20,
  retentionMs: 60_000,
  logger: silentLogger(),
  deadLetters: new DeadLetterIndex(orm),
});

/** An outbox row written as the outbox writers would not: any topic, payload and headers. */
async function insertRow(
  rowTopic: string,
  key: string,
  payload: Buffer,
  headers: unknown = {},
): Promise<string> {
  const id = await orm.em.fork().insert(OutboxMessage, {
    eventId: randomUUID(),
    eventType: 'Raw',
    topic: rowTopic,
    messageKey: key,
    payload,
    headers: headers as Record<string, string>,
    createdAt: new Date(),
    attempts: 0,
  });
  return String(id);
}

/** The messages on `topic` whose key starts with `keys`, as `key=value` (ASCII here), until stop(). */
async function collect(groupId: string, topic: string, keys: string) {
  const seen: string[] = [];
  const consumer = new KafkaConsumer(kafka, { groupId, topics: [topic], logger: silentLogger() });
  await consumer.start(async (m: IncomingMessage) => {
    const key = m.key?.toString() ?? '';
    if (key.startsWith(keys)) seen.push(`${key}=${m.value?.toString().slice(0, 12)}`);
  });
  return { seen, stop: () => consumer.stop() };
}

async function outboxState() {
  const rows = await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
  return rows.map((r) => ({
    id: String(r.id),
    published: r.publishedAt != null,
    attempts: r.attempts,
    last_error: r.lastError ?? null,
  }));
}

const value = (label: string, bytes: number) => Buffer.from(label.padEnd(bytes, '.'));

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
      fields: [{ name: 'name', text: '你好', format: 'text' }],
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
    await insertIntoOutbox(em, codec, [{ topic, key: `vendor:${entityId}`, event }]);
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

/** Publishes for real, then dies before the relay can delete the rows: the crash window of the pattern. */
class CrashAfterSend implements RelayProducer {
  constructor(private readonly inner: KafkaProducer) {}
  async sendBatch(batches: readonly TopicMessages[]): Promise<void> {
    await this.inner.sendBatch(batches);
    throw new Error('relay process died after publishing');
  }
  checkFits: RelayProducer['checkFits'] = (t, m) => this.inner.checkFits(t, m);
}

describe('outbox relay', () => {
  it('publishes exactly the committed events, survives a relay crash, and deletes every row it published', async () => {
    const committed = [await storeContent('v-1'), await storeContent('v-2')];
    await expect(storeContent('v-rolled-back', true)).rejects.toThrow('command failed');
    committed.push(await storeContent('v-3'), await storeContent('v-4'));

    const em = orm.em.fork();
    expect(await em.count(OutboxMessage, {})).toBe(4);
    expect(await em.count(SourceContent, { entityId: 'v-rolled-back' })).toBe(0);

    // First relay: publishes the first batch, then crashes before deleting its rows.
    const crashing = new OutboxRelay(orm, new CrashAfterSend(producer), relayOptions());
    await expect(crashing.relayOnce()).rejects.toThrow('relay process died');
    expect(await orm.em.fork().count(OutboxMessage, { publishedAt: null })).toBe(4);

    // A new relay takes over and publishes everything, the crashed batch again included.
    const relay = new OutboxRelay(orm, producer, relayOptions());
    await relay.start();
    await waitFor('all rows published', async () => (await orm.em.fork().count(OutboxMessage, {})) === 0);
    await relay.stop();

    const consumed = await consumeAll(`${prefix}check`);
    const committedIds = committed.map((e) => e.eventId);
    await waitFor('every committed event', () => committedIds.every((id) => consumed.ids.includes(id)));
    await consumed.stop();

    expect(new Set(consumed.ids)).toEqual(new Set(committedIds));
    // Only the batch in flight at the crash is duplicated (batch size 3).
    expect(consumed.ids.length).toBe(committedIds.length + relayOptions().batchSize);
  });

  it('purges rows an older release marked published, only after the retention period', async () => {
    const legacy = await insertRow(topic, 'vendor:v-old', value('old', 10));
    await orm.em.fork().nativeUpdate(OutboxMessage, { id: Number(legacy) }, { publishedAt: new Date() });
    const relay = new OutboxRelay(orm, producer, relayOptions());
    expect(await relay.relayOnce()).toBe(0);
    expect(await relay.purgePublished(Date.now())).toBe(0);
    expect(await relay.purgePublished(Date.now() + 61_000)).toBe(1);
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });
});

describe('outbox relay: nothing stalls it', () => {
  const options = () => ({ ...relayOptions(), batchSize: 50 });

  it('splits a batch larger than the topic takes into requests that fit, in key order', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    // 12 rows of 6 KB each for one key: 72 KB, in a topic that takes 16 KB per message batch.
    for (let i = 0; i < 12; i++)
      await insertRow(smallTopic, 'k-split', value(`split-${String(i).padStart(2, '0')}`, 6000));
    const consumed = await collect(`${prefix}split`, smallTopic, 'k-split');
    // Counts the relay's sends and the produce requests acknowledged: one send, in requests that fit.
    let sends = 0;
    let requests = 0;
    const counting: RelayProducer = {
      checkFits: (t, m) => producer.checkFits(t, m),
      sendBatch: (batches, acknowledged) => {
        sends += 1;
        return producer.sendBatch(batches, (request) => {
          requests += 1;
          acknowledged?.(request);
        });
      },
    };
    const relay = new OutboxRelay(orm, counting, options());
    expect(await relay.relayOnce()).toBe(12);
    expect({ sends, requests }).toEqual({ sends: 1, requests: 6 });
    await waitFor('the 12 rows', () => consumed.seen.length >= 12);
    await consumed.stop();
    expect(consumed.seen).toEqual(
      Array.from({ length: 12 }, (_, i) => `k-split=split-${String(i).padStart(2, '0')}....`),
    );
  });

  it('moves rows that can never be published to the dead letters and publishes the rows behind them', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    const index = new DeadLetterIndex(orm);
    await index.purge({ all: true });
    await insertRow(smallTopic, 'k-poison', value('before', 100));
    const tooLarge = await insertRow(smallTopic, 'k-poison', value('too-large', SMALL_LIMIT + 1));
    const badHeaders = await insertRow(smallTopic, 'k-poison', value('bad-headers', 100), {
      'tp-event-id': 7,
    });
    await insertRow(smallTopic, 'k-poison', value('after', 100));
    const consumed = await collect(`${prefix}poison`, smallTopic, 'k-poison');

    const relay = new OutboxRelay(orm, producer, options());
    expect(await relay.relayOnce()).toBe(2);
    await waitFor('the rows around the poison', () => consumed.seen.length >= 2);

    const letters = await index.list({ limit: 10 });
    expect(
      letters.map((l) => [l.originalOffset, l.errorCode, l.consumerGroup, l.originalPartition]).sort(),
    ).toEqual(
      [
        [Number(badHeaders), 'OUTBOX_ROW_INVALID', 'worker.outbox-relay', -1],
        [Number(tooLarge), 'OUTBOX_MESSAGE_TOO_LARGE', 'worker.outbox-relay', -1],
      ].sort(),
    );
    const large = await index.get(letters.find((l) => l.errorCode === 'OUTBOX_MESSAGE_TOO_LARGE')!.id);
    expect(large!.payload.length).toBe(SMALL_LIMIT + 1);
    // Published rows are deleted, poison rows moved: nothing stays behind.
    expect(await outboxState()).toEqual([]);

    // Later traffic still flows.
    await insertRow(smallTopic, 'k-poison', value('later', 100));
    expect(await relay.relayOnce()).toBe(1);
    await waitFor('the later row', () => consumed.seen.length >= 3);
    await consumed.stop();
    expect(consumed.seen).toEqual([
      'k-poison=before......',
      'k-poison=after.......',
      'k-poison=later.......',
    ]);
  });

  it('deletes what a failed send had published, records the failure on the rest, and never sends a row twice', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    for (let i = 0; i < 8; i++) await insertRow(smallTopic, `k-p${i % 2}`, value(`part-${i}`, 6000));
    // The cluster is lost after the first request was acknowledged (48 KB go in several requests).
    let failNext = true;
    const losing: RelayProducer = {
      checkFits: (t, m) => producer.checkFits(t, m),
      sendBatch: (batches, acknowledged) =>
        producer.sendBatch(batches, (request) => {
          acknowledged?.(request);
          if (failNext) {
            failNext = false;
            throw new Error('broker lost');
          }
        }),
    };
    const consumed = await collect(`${prefix}partial`, smallTopic, 'k-p');
    const relay = new OutboxRelay(orm, losing, options());
    await expect(relay.relayOnce()).rejects.toThrow('broker lost');

    // The acknowledged rows are gone; the rest wait, unpublished, with the failure recorded.
    const waiting = await outboxState();
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.length).toBeLessThan(8);
    expect(
      waiting.every((r) => !r.published && r.attempts === 1 && r.last_error === 'Error: broker lost'),
    ).toBe(true);

    expect(await relay.relayOnce()).toBe(waiting.length);
    await waitFor('every row', () => consumed.seen.length >= 8);
    // A bounded window after the last expected message: no copy arrives.
    await insertRow(smallTopic, 'k-pend', value('end', 10));
    await relay.relayOnce();
    await waitFor('the marker row', () => consumed.seen.some((s) => s.startsWith('k-pend')));
    await consumed.stop();
    const parts = consumed.seen.filter((s) => s.startsWith('k-p0') || s.startsWith('k-p1'));
    expect(parts).toHaveLength(8);
    for (const key of ['k-p0', 'k-p1']) {
      const ofKey = parts.filter((s) => s.startsWith(`${key}=`)).map((s) => Number(s.split('part-')[1]![0]));
      expect(ofKey).toEqual([...ofKey].sort());
    }
  });

  it('publishes the rows before the first whose topic limit cannot be read; that row waits with every row after it', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    const ids = [
      await insertRow(topic, 'k-held-0', value('before', 10)),
      await insertRow(smallTopic, 'k-held-1', value('unknown limit', 10)),
      await insertRow(topic, 'k-held-2', value('after', 10)),
      await insertRow(smallTopic, 'k-held-3', value('unknown limit', 10)),
    ];
    const checked: string[] = [];
    const unreadable: RelayProducer = {
      checkFits: async (t, m) => {
        checked.push(`${t === smallTopic ? 'small' : 'main'} ${m.length}`);
        if (t === smallTopic) throw new Error('limit unreadable');
        await producer.checkFits(t, m);
      },
      sendBatch: (batches, acknowledged) => producer.sendBatch(batches, acknowledged),
    };
    const relay = new OutboxRelay(orm, unreadable, { ...relayOptions(), batchSize: 10 });
    await expect(relay.relayOnce()).rejects.toThrow('limit unreadable');
    // One check per topic for the whole batch, not one per row.
    expect(checked).toEqual(['main 2', 'small 2']);
    const waiting = await outboxState();
    expect(waiting.map((r) => r.id)).toEqual(ids.slice(1));
    expect(waiting.every((r) => r.attempts === 1 && r.last_error === 'Error: limit unreadable')).toBe(true);
  });

  it('stands by while another relay holds the lock, then takes over', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    await insertRow(smallTopic, 'k-lock', value('locked', 10));
    const other = await sql.connect();
    try {
      await other.query('begin');
      await other.query(`select pg_advisory_xact_lock(hashtextextended('tp.outbox-relay', 0))`);
      const relay = new OutboxRelay(orm, producer, options());
      expect(await relay.relayOnce()).toBe(0);
      await other.query('commit');
      expect(await relay.relayOnce()).toBe(1);
    } finally {
      other.release();
    }
  });
});

describe('outbox backlog', () => {
  it('is up on /ready while rows leave in time, and degraded once the oldest waits past the threshold', async () => {
    await orm.em.fork().nativeDelete(OutboxMessage, {});
    const check = outboxBacklogCheck(orm, 60);
    await expect(check.check()).resolves.toBeUndefined();
    expect(check.required).toBe(false);
    await insertRow(smallTopic, 'k-fresh', value('fresh', 10));
    await expect(check.check()).resolves.toBeUndefined();
    await orm.em.fork().nativeUpdate(OutboxMessage, {}, { createdAt: new Date(Date.now() - 5 * 60_000) });
    await expect(check.check()).resolves.toEqual({
      degraded: expect.stringMatching(
        /^1 outbox rows unpublished, the oldest for 30\d s \(OUTBOX_BACKLOG_DEGRADED_S=60\)$/,
      ),
    });
    // The relay publishes it: the backlog is gone and the check is up again.
    expect(await new OutboxRelay(orm, producer, relayOptions()).relayOnce()).toBe(1);
    await expect(check.check()).resolves.toBeUndefined();
  });
});
