import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  consumerGroup,
  topicName,
  type ContentChanged,
  type ContentChangedData,
  type DeadLetter,
  type TranslationRequested,
} from '@tp/contracts';
import { ContentTranslation, OutboxMessage, SourceContent, TranslationConfig, type Orm } from '@tp/db';
import type { KafkaProducer } from '@tp/kafka';
import {
  contentChangedKey,
  contentReadCacheKey,
  requestedFields,
  sourceHash,
  type FieldRequest,
} from '@tp/pipeline';
import type { RedisClient } from '@tp/redis';
import { EventCodec, newEvent } from '@tp/schemas';
import type { Admin } from 'kafkajs';
import type { Registry } from 'prom-client';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startPipelineTask, type PipelineTaskFixture } from '@tp/test/harness/pipeline-task';
import { waitFor } from '@tp/test/harness/wait';
import { plannerTask } from './planner.task.js';

const codec = new EventCodec();
const prefix = uniquePrefix('planner');
const changedTopic = topicName('contentChanged', prefix);
const requestedTopic = topicName('translationRequested', prefix);
let fixture: PipelineTaskFixture | undefined;
let orm: Orm;
let admin: Admin;
let redis: RedisClient;
let producer: KafkaProducer;
let metrics: Registry;
let keyPrefix: string;
let deadLetters: readonly DeadLetter[];

beforeAll(async () => {
  fixture = await startPipelineTask('planner', {
    prefix,
    poolMax: 6,
    prepare: async (database) => {
      orm = database;
      await setConfig(['en', 'ja', 'de'], true);
    },
    task: (context) =>
      plannerTask(context, {
        topicPrefix: prefix,
        redisKeyPrefix: context.keyPrefix,
        concurrency: 3,
      }),
  });
  ({ orm, admin, redis, producer, metrics, keyPrefix, deadLetters } = fixture);
});

afterAll(() => fixture?.close());

function contentChanged(entityId: string, over: Partial<ContentChangedData> = {}): ContentChanged {
  return newEvent(
    'ContentChanged',
    {
      module: 'catalog',
      entityType: 'vendor',
      entityId,
      sourceLang: 'zh-CN',
      sourceVersion: 1,
      fields: [
        { name: 'name', text: '你好', format: 'text' },
        { name: 'description', text: '好吃的面条', format: 'text' },
      ],
      ...over,
    },
    { correlationId: `corr-${entityId}` },
  );
}

/** Produces events as a business system would, keyed entityType:entityId (so one entity, one partition). */
async function send(...events: ContentChanged[]): Promise<void> {
  await producer.send(
    changedTopic,
    events.map((event) => ({
      key: contentChangedKey(event.data.entityType, event.data.entityId),
      ...codec.encode(event),
    })),
  );
}

/** Waits until the planner committed every message on its topic (handled, or dead-lettered). */
async function plannerCaughtUp(): Promise<void> {
  const groupId = consumerGroup('planner', prefix);
  await waitFor('planner caught up', async () => {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(changedTopic),
      admin.fetchOffsets({ groupId, topics: [changedTopic] }),
    ]);
    return ends.every((end) => {
      const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
      return BigInt(end.high) === 0n || BigInt(done) >= BigInt(end.high);
    });
  });
}

async function setConfig(targetLanguages: string[], enabled: boolean): Promise<void> {
  await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages, enabled });
}

async function sources(entityId: string) {
  return orm.em.fork().find(SourceContent, { entityId }, { orderBy: { field: 'asc' } });
}

/** One field a TranslationRequested in the outbox asks for, with the message's key and event. */
interface Request {
  readonly key: string | null;
  readonly event: TranslationRequested;
  readonly field: FieldRequest;
}

/** The TranslationRequested of an entity in the outbox, oldest first. */
async function messages(entityId: string): Promise<Omit<Request, 'field'>[]> {
  const rows = await orm.em.fork().find(OutboxMessage, { topic: requestedTopic }, { orderBy: { id: 'asc' } });
  return rows
    .map((row) => ({
      key: row.messageKey ?? null,
      event: codec.decode(Buffer.from(row.payload), row.headers) as TranslationRequested,
    }))
    .filter((r) => r.event.data.entityId === entityId);
}

/** Each field (x language) requested for an entity, in the order its requests carry them. */
async function requests(entityId: string): Promise<Request[]> {
  return (await messages(entityId)).flatMap((m) =>
    requestedFields(m.event.data).map((field) => ({ ...m, field })),
  );
}

const counter = async (name: string, labels: Record<string, string> = {}) => {
  const metric = await metrics.getSingleMetric(name)?.get();
  return (
    metric?.values
      .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      .reduce((sum, v) => sum + v.value, 0) ?? 0
  );
};

/** A human translation of `text` at `sourceVersion`, as PUT .../translations/{lang} stores it. */
async function human(entityId: string, targetLang: string, text: string, sourceVersion: number) {
  const em = orm.em.fork();
  em.create(ContentTranslation, {
    entityType: 'vendor',
    entityId,
    field: 'name',
    targetLang,
    sourceLang: 'zh-CN',
    translatedText: `By hand (${targetLang})`,
    sourceHash: sourceHash(text),
    sourceVersion,
    engine: 'human',
    origin: 'human',
    writtenBy: '00000000-0000-4000-8000-000000000009',
    lastEventId: '00000000-0000-4000-8000-00000000000a',
  });
  await em.flush();
}

const translations = (entityId: string) =>
  orm.em.fork().find(ContentTranslation, { entityId }, { orderBy: { targetLang: 'asc' } });

describe('planner: human translations (issue #19)', () => {
  it('marks human translations of a changed field stale, keeps them, and requests machine ones unless the language is human-only', async () => {
    await send(contentChanged('v-human', { fields: [{ name: 'name', text: '旧', format: 'text' }] }));
    await plannerCaughtUp();
    await human('v-human', 'en', '旧', 1);
    await human('v-human', 'ja', '旧', 1);
    await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { humanOnlyLanguages: ['ja'] });
    try {
      const before = (await requests('v-human')).length;
      // The same text again (a version bump) marks nothing; a new text does.
      await send(
        contentChanged('v-human', {
          sourceVersion: 2,
          fields: [{ name: 'name', text: '旧', format: 'text' }],
        }),
      );
      await plannerCaughtUp();
      expect((await translations('v-human')).map((t) => t.stale)).toEqual([false, false]);
      await send(
        contentChanged('v-human', {
          sourceVersion: 3,
          fields: [{ name: 'name', text: '新', format: 'text' }],
        }),
      );
      await plannerCaughtUp();
      expect(await translations('v-human')).toMatchObject([
        { targetLang: 'en', origin: 'human', stale: true, translatedText: 'By hand (en)' },
        { targetLang: 'ja', origin: 'human', stale: true, translatedText: 'By hand (ja)' },
      ]);
      const asked = (await requests('v-human'))
        .slice(before)
        .map((r) => ({ ...r.field, targetLang: r.event.data.targetLang }));
      expect(asked.map((d) => [d.targetLang, d.text, d.sourceVersion])).toEqual([
        ['en', '新', 3],
        ['de', '新', 3],
      ]);
    } finally {
      await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { humanOnlyLanguages: [] });
    }
  });
});

describe('planner', () => {
  it('stores 2 fields of a new entity and requests both in one request per language (3), then drops its read cache', async () => {
    const cacheKey = contentReadCacheKey(keyPrefix, 'vendor', 'v-new');
    await redis.hSet(cacheKey, 'en', '{"stale":true}');
    const event = contentChanged('v-new');
    await send(event);
    await plannerCaughtUp();

    const stored = await sources('v-new');
    expect(stored.map((s) => [s.module, s.entityType, s.field, s.sourceLang, s.sourceVersion])).toEqual([
      ['catalog', 'vendor', 'description', 'zh-CN', 1],
      ['catalog', 'vendor', 'name', 'zh-CN', 1],
    ]);
    expect(stored.find((s) => s.field === 'name')?.sourceHash).toBe(sourceHash('你好'));

    const requested = await requests('v-new');
    expect(requested.map((r) => `${r.key} ${r.field.field}`).sort()).toEqual(
      [
        'vendor:v-new:de description',
        'vendor:v-new:en description',
        'vendor:v-new:ja description',
        'vendor:v-new:de name',
        'vendor:v-new:en name',
        'vendor:v-new:ja name',
      ].sort(),
    );
    expect((await messages('v-new')).map((m) => m.key).sort()).toEqual([
      'vendor:v-new:de',
      'vendor:v-new:en',
      'vendor:v-new:ja',
    ]);
    for (const { event: request, field } of requested) {
      expect(request.correlationId).toBe(event.correlationId);
      expect(request.causationId).toBe(event.eventId);
      expect(field.sourceVersion).toBe(1);
      expect(field.format).toBe('text');
      expect(request.data.sourceLang).toBe('zh-CN');
    }
    expect(
      requested.find((r) => r.key === 'vendor:v-new:ja' && r.field.field === 'name')?.field,
    ).toMatchObject({
      text: '你好',
      sourceHash: sourceHash('你好'),
    });
    expect(await redis.exists(cacheKey)).toBe(0);
  });

  it('requests nothing new when the same event is delivered again', async () => {
    const event = contentChanged('v-again');
    await send(event);
    await plannerCaughtUp();
    expect(await requests('v-again')).toHaveLength(6);
    const unchangedBefore = await counter('planner_fields_skipped_total', { reason: 'unchanged' });

    await send(event, event);
    await plannerCaughtUp();
    expect(await requests('v-again')).toHaveLength(6);
    expect(await sources('v-again')).toHaveLength(2);
    expect((await counter('planner_fields_skipped_total', { reason: 'unchanged' })) - unchangedBefore).toBe(
      4,
    );
  });

  it('requests only the changed field when one field changes, and ignores an older version', async () => {
    await send(contentChanged('v-edit'));
    await plannerCaughtUp();
    await send(
      contentChanged('v-edit', {
        sourceVersion: 2,
        fields: [
          { name: 'name', text: '你好吗', format: 'text' },
          { name: 'description', text: '好吃的面条', format: 'text' },
        ],
      }),
    );
    await plannerCaughtUp();

    const second = (await requests('v-edit')).slice(6);
    expect(second.map((r) => r.field.field)).toEqual(['name', 'name', 'name']);
    expect(second.map((r) => r.event.data.targetLang).sort()).toEqual(['de', 'en', 'ja']);
    expect(second.every((r) => r.field.sourceVersion === 2 && r.field.text === '你好吗')).toBe(true);
    // The unchanged field records the newer version without asking for anything.
    expect((await sources('v-edit')).map((s) => [s.field, s.sourceVersion])).toEqual([
      ['description', 2],
      ['name', 2],
    ]);

    const staleBefore = await counter('planner_fields_skipped_total', { reason: 'stale' });
    await send(
      contentChanged('v-edit', {
        sourceVersion: 1,
        fields: [{ name: 'name', text: '旧的', format: 'text' }],
      }),
    );
    await plannerCaughtUp();
    expect(await requests('v-edit')).toHaveLength(9);
    expect((await sources('v-edit')).find((s) => s.field === 'name')?.text).toBe('你好吗');
    expect((await counter('planner_fields_skipped_total', { reason: 'stale' })) - staleBefore).toBe(1);
  });

  it('stores the source but requests nothing while translation is disabled, and applies config on the next message', async () => {
    await setConfig(['en', 'ja', 'de'], false);
    try {
      await send(contentChanged('v-off'));
      await plannerCaughtUp();
      expect(await sources('v-off')).toHaveLength(2);
      expect(await requests('v-off')).toHaveLength(0);

      await setConfig(['fr'], true);
      await send(contentChanged('v-on'));
      await plannerCaughtUp();
      expect((await requests('v-on')).map((r) => `${r.key} ${r.field.field}`)).toEqual([
        'vendor:v-on:fr name',
        'vendor:v-on:fr description',
      ]);
    } finally {
      await setConfig(['en', 'ja', 'de'], true);
    }
  });

  it('sends poison messages to the dead letters and still handles the next message of the partition', async () => {
    await send(contentChanged('v-owned'));
    await plannerCaughtUp();

    const conflict = contentChanged('v-owned', { module: 'billing', sourceVersion: 2 });
    // A new entity of a type another module owns: found through the type, not the entity's rows.
    const newEntityConflict = contentChanged('v-other', { module: 'billing' });
    const badLanguage = contentChanged('v-owned', { sourceLang: 'klingon', sourceVersion: 3 });
    const next = contentChanged('v-owned', {
      sourceVersion: 4,
      fields: [{ name: 'name', text: '再见', format: 'text' }],
    });
    const key = 'vendor:v-owned';
    await producer.send(changedTopic, [
      { key, ...codec.encode(conflict) },
      { key, ...codec.encode(newEntityConflict) },
      { key, ...codec.encode(badLanguage) },
      { key, value: Buffer.from('not avro'), headers: {} },
      { key, ...codec.encode(next) },
    ]);
    await plannerCaughtUp();

    // The message after the poison ones was handled: only its field, 3 languages.
    const requested = await requests('v-owned');
    expect(requested).toHaveLength(9);
    expect(requested.slice(6).every((r) => r.field.sourceVersion === 4)).toBe(true);
    expect((await sources('v-owned')).every((s) => s.module === 'catalog')).toBe(true);

    expect(await sources('v-other')).toEqual([]);

    await waitFor('four dead letters', () => deadLetters.length >= 4);
    expect(deadLetters.map((d) => d.data.errorCode)).toEqual([
      'MODULE_CONFLICT',
      'MODULE_CONFLICT',
      'UNSUPPORTED_LANGUAGE',
      'SCHEMA_HEADER_MISSING',
    ]);
    const [first] = deadLetters;
    expect(first?.data).toMatchObject({
      originalTopic: changedTopic,
      consumerGroup: consumerGroup('planner', prefix),
      attempts: 1,
    });
    expect(first?.data.originalKey?.toString()).toBe(key);
    expect(codec.decode(first?.data.originalValue ?? null, first?.data.originalHeaders ?? {}).eventId).toBe(
      conflict.eventId,
    );
    expect(await counter('pipeline_dead_letters_total', { code: 'MODULE_CONFLICT' })).toBe(2);
  });

  it('stores many entities handled at the same time (one transaction) exactly as one by one', async () => {
    const events = Array.from({ length: 24 }, (_, i) => contentChanged(`v-together-${i}`));
    await send(...events);
    await plannerCaughtUp();

    for (const { eventId, data } of events) {
      const id = data.entityId;
      expect((await sources(id)).map((s) => [s.field, s.sourceVersion])).toEqual([
        ['description', 1],
        ['name', 1],
      ]);
      const requested = await requests(id);
      expect(requested.map((r) => `${r.field.field}:${r.event.data.targetLang}`).sort()).toEqual([
        'description:de',
        'description:en',
        'description:ja',
        'name:de',
        'name:en',
        'name:ja',
      ]);
      expect(requested.every((r) => r.event.causationId === eventId)).toBe(true);
    }
  });

  it('refuses alone the second module claiming a new type in the same batch, and stores the rest', async () => {
    const before = deadLetters.length;
    const kiosks = [
      contentChanged('k-catalog', { entityType: 'kiosk' }),
      contentChanged('k-billing', { entityType: 'kiosk', module: 'billing' }),
    ];
    const others = Array.from({ length: 6 }, (_, i) => contentChanged(`v-beside-${i}`));
    await send(...kiosks, ...others);
    await plannerCaughtUp();

    await waitFor('one dead letter', () => deadLetters.length > before);
    const refused = deadLetters.slice(before);
    expect(refused.map((d) => d.data.errorCode)).toEqual(['MODULE_CONFLICT']);
    const stored = await orm.em.fork().find(SourceContent, { entityType: 'kiosk' });
    // Whichever came first owns the type; the other is the dead letter.
    expect(new Set(stored.map((s) => s.module)).size).toBe(1);
    expect(new Set(stored.map((s) => s.entityId)).size).toBe(1);
    for (const other of others) expect(await sources(other.data.entityId)).toHaveLength(2);
  });

  it('removes the fields a change leaves out when it comes with other entities', async () => {
    await send(contentChanged('v-shrinks'));
    await plannerCaughtUp();
    const shrunk = contentChanged('v-shrinks', {
      sourceVersion: 2,
      fields: [{ name: 'name', text: '你好', format: 'text' }],
    });
    const others = Array.from({ length: 6 }, (_, i) => contentChanged(`v-with-shrink-${i}`));
    await send(shrunk, ...others);
    await plannerCaughtUp();

    expect((await sources('v-shrinks')).map((s) => [s.field, s.sourceVersion])).toEqual([['name', 2]]);
    for (const other of others) expect(await sources(other.data.entityId)).toHaveLength(2);
  });

  it('counts every field translation it requested through the outbox (fields x languages)', async () => {
    const rows = await orm.em.fork().find(OutboxMessage, { topic: requestedTopic });
    const fields = rows.flatMap((row) =>
      requestedFields((codec.decode(Buffer.from(row.payload), row.headers) as TranslationRequested).data),
    );
    expect(fields.length).toBeGreaterThan(rows.length);
    expect(await counter('planner_translations_requested_total')).toBe(fields.length);
  });

  it('carries the format each field was reported in', async () => {
    await send(
      contentChanged('v-rich', {
        fields: [
          { name: 'name', text: '你好', format: 'text' },
          { name: 'body', text: '<p>你好</p>', format: 'html' },
        ],
      }),
    );
    await plannerCaughtUp();
    const first = await requests('v-rich');
    expect(
      first.filter((r) => r.event.data.targetLang === 'en').map((r) => [r.field.field, r.field.format]),
    ).toEqual([
      ['name', 'text'],
      ['body', 'html'],
    ]);
    expect((await sources('v-rich')).map((s) => [s.field, s.format])).toEqual([
      ['body', 'html'],
      ['name', 'text'],
    ]);
  });
});
