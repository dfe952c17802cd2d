import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  consumerGroup,
  topicName,
  type ConsumerGroupKey,
  type ContentChanged,
  type ContentChangedData,
  type ContentDeleted,
  type TopicKey,
  type TranslationCompleted,
} from '@tp/contracts';
import { ContentDeletion, ContentReport, ContentTranslation, SourceContent, type Orm } from '@tp/db';
import type { KafkaProducer } from '@tp/kafka';
import {
  contentChangedKey,
  contentReadCacheKey,
  deadLetterEntry,
  DeadLetterIndex,
  recordContentReport,
  sourceHash,
  translationMessageKey,
} from '@tp/pipeline';
import type { RedisClient } from '@tp/redis';
import { EventCodec, newEvent } from '@tp/schemas';
import type { Admin } from 'kafkajs';

import { testBrokers, uniquePrefix } from '@tp/test/harness/kafka';
import { startPipelineTask, type PipelineTaskFixture } from '@tp/test/harness/pipeline-task';
import { REPO_ROOT } from '@tp/test/harness/processes';
import { waitFor } from '@tp/test/harness/wait';
import { projectionTask } from './project-translations/projection.task.js';
import { plannerTask } from './plan-translations/planner.task.js';

// Deletion, tombstones and fields left out, through the real planner and projection on one database:
// changes and deletions are produced as a business system would, results as the translator would.
const codec = new EventCodec();
const prefix = uniquePrefix('lifecycle');
let fixture: PipelineTaskFixture | undefined;
let orm: Orm;
let admin: Admin;
let redis: RedisClient;
let producer: KafkaProducer;
let keyPrefix: string;

beforeAll(async () => {
  fixture = await startPipelineTask('lifecycle', {
    prefix,
    poolMax: 6,
    task: (context) => {
      const options = { topicPrefix: prefix, redisKeyPrefix: context.keyPrefix, concurrency: 3 };
      const tasks = [plannerTask(context, options), projectionTask(context, options)];
      return {
        start: async () => {
          for (const task of tasks) await task.start();
        },
        stop: async () => {
          for (const task of tasks) await task.stop();
        },
      };
    },
  });
  ({ orm, admin, redis, producer, keyPrefix } = fixture);
});

afterAll(() => fixture?.close());

const FIELDS = [
  { name: 'name', text: '你好', format: 'text' },
  { name: 'description', text: '好吃的面条', format: 'text' },
];

function changed(entityId: string, sourceVersion: number, fields = FIELDS): ContentChanged {
  const data: ContentChangedData = {
    module: 'catalog',
    entityType: 'vendor',
    entityId,
    sourceLang: 'zh-CN',
    sourceVersion,
    fields,
  };
  return newEvent('ContentChanged', data, { correlationId: `corr-${entityId}` });
}

function deleted(entityId: string, sourceVersion: number | null = null, module = 'catalog'): ContentDeleted {
  return newEvent(
    'ContentDeleted',
    { module, entityType: 'vendor', entityId, sourceVersion },
    { correlationId: `corr-${entityId}` },
  );
}

function completed(entityId: string, field: string, sourceVersion: number): TranslationCompleted {
  const text = FIELDS.find((f) => f.name === field)?.text ?? field;
  return newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId,
      field,
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: `${field} in English, v${sourceVersion}`,
      sourceHash: sourceHash(text),
      sourceVersion,
      engine: 'offline',
      truncated: false,
      fallback: false,
      detectedSourceLang: null,
      requestedAt: 1_000 + sourceVersion,
      moreResults: [],
      failures: [],
    },
    { correlationId: `corr-${entityId}` },
  );
}

/** Produces to the content topic under the entity's key, as a business system does. */
async function report(...events: (ContentChanged | ContentDeleted)[]): Promise<void> {
  await producer.send(
    topicName('contentChanged', prefix),
    events.map((event) => ({
      key: contentChangedKey(event.data.entityType, event.data.entityId),
      ...codec.encode(event),
    })),
  );
  await caughtUp('planner', 'contentChanged');
}

/** Produces results as the translator does. */
async function results(...events: TranslationCompleted[]): Promise<void> {
  await producer.send(
    topicName('translationCompleted', prefix),
    events.map((event) => ({ key: translationMessageKey(event.data), ...codec.encode(event) })),
  );
  await caughtUp('projection', 'translationCompleted');
}

/** Waits until the group committed every message of the topic. */
async function caughtUp(group: ConsumerGroupKey, topicKey: TopicKey): Promise<void> {
  const [groupId, topic] = [consumerGroup(group, prefix), topicName(topicKey, prefix)];
  await waitFor(`${group} caught up`, async () => {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    return ends.every((end) => {
      const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
      return BigInt(end.high) === 0n || BigInt(done) >= BigInt(end.high);
    });
  });
}

const sources = async (entityId: string) =>
  (await orm.em.fork().find(SourceContent, { entityId }, { orderBy: { field: 'asc' } })).map((s) => [
    s.field,
    s.sourceVersion,
  ]);
const translations = async (entityId: string) =>
  (await orm.em.fork().find(ContentTranslation, { entityId }, { orderBy: { field: 'asc' } })).map((t) => [
    t.field,
    t.sourceVersion,
  ]);
const tombstone = async (entityId: string) =>
  (await orm.em.fork().findOne(ContentDeletion, { entityType: 'vendor', entityId }))?.deletedVersion;

/** An entity with both fields stored at `version` and translated into English. */
async function translatedEntity(entityId: string, version = 1): Promise<void> {
  await report(changed(entityId, version));
  await results(completed(entityId, 'name', version), completed(entityId, 'description', version));
  expect(await translations(entityId)).toEqual([
    ['description', version],
    ['name', version],
  ]);
}

describe('content lifecycle in the worker', () => {
  it('removes the source and every translation of a deleted entity, drops its read cache and keeps a tombstone', async () => {
    await translatedEntity('v-del');
    const cacheKey = contentReadCacheKey(keyPrefix, 'vendor', 'v-del');
    await redis.hSet(cacheKey, 'en', '{"stale":true}');
    await report(deleted('v-del'));
    expect(await sources('v-del')).toEqual([]);
    expect(await translations('v-del')).toEqual([]);
    expect(await redis.exists(cacheKey)).toBe(0);
    // Without a version, the deletion takes the highest stored one.
    expect(await tombstone('v-del')).toBe(1);
    // Of an entity with nothing stored, a deletion without a version bars nothing.
    await report(deleted('v-never'));
    expect(await tombstone('v-never')).toBeUndefined();
    await report(changed('v-never', 0));
    expect(await sources('v-never')).toHaveLength(2);
  });

  it('writes nothing for a late result or an old change after the deletion, and a newer change brings the entity back', async () => {
    await translatedEntity('v-late', 3);
    await report(deleted('v-late', 4));
    expect(await tombstone('v-late')).toBe(4);
    await results(completed('v-late', 'name', 3), completed('v-late', 'name', 4));
    await report(changed('v-late', 2), changed('v-late', 4));
    expect(await sources('v-late')).toEqual([]);
    expect(await translations('v-late')).toEqual([]);

    await report(changed('v-late', 5));
    expect(await sources('v-late')).toEqual([
      ['description', 5],
      ['name', 5],
    ]);
    // A result from before the deletion still writes nothing; one of the new version does.
    await results(completed('v-late', 'description', 3), completed('v-late', 'name', 5));
    expect(await translations('v-late')).toEqual([['name', 5]]);
  });

  it('ignores a deletion older than the stored content, and refuses one from another module', async () => {
    await translatedEntity('v-newer', 3);
    await report(deleted('v-newer', 2), deleted('v-newer', null, 'billing'));
    expect(await sources('v-newer')).toHaveLength(2);
    expect(await translations('v-newer')).toHaveLength(2);
    expect(await tombstone('v-newer')).toBeUndefined();
    await waitFor('the refused deletion dead-lettered', () =>
      (fixture?.deadLetters ?? []).some((d) => d.data.errorCode === 'MODULE_CONFLICT'),
    );
  });

  it('removes the source and translations of a field a newer report leaves out, and keeps the others', async () => {
    await translatedEntity('v-omit');
    const cacheKey = contentReadCacheKey(keyPrefix, 'vendor', 'v-omit');
    await redis.hSet(cacheKey, 'en', '{"stale":true}');
    await report(changed('v-omit', 2, [{ name: 'name', text: '你好', format: 'text' }]));
    expect(await sources('v-omit')).toEqual([['name', 2]]);
    expect(await translations('v-omit')).toEqual([['name', 1]]);
    expect(await redis.exists(cacheKey)).toBe(0);
    // An older report leaving out a field removes nothing.
    await report(changed('v-omit', 1, [{ name: 'other', text: 'x', format: 'text' }]));
    expect(await sources('v-omit')).toEqual([['name', 2]]);
  });

  it('marks a tracked report planned with its requests, and counts the dead letter of a refused one', async () => {
    const tracked = async (event: ContentChanged | ContentDeleted, kind: 'change' | 'delete') => {
      await recordContentReport(orm.em.fork(), {
        trackingId: event.eventId,
        apiKeyId: randomUUID(),
        kind,
        module: event.data.module,
        entityType: event.data.entityType,
        entityId: event.data.entityId,
        sourceVersion: event.data.sourceVersion,
      });
      return event;
    };
    const change = await tracked(changed('v-track', 1), 'change');
    const refused = await tracked(deleted('v-track', null, 'billing'), 'delete');
    await report(change, refused);
    const row = await orm.em.fork().findOneOrFail(ContentReport, { trackingId: change.eventId });
    expect(row.plannedAt).toBeInstanceOf(Date);
    // The seeded configuration translates into English and zh-TW: both fields, two languages.
    expect([...row.plannedFields].sort()).toEqual(['description', 'name']);
    expect(row.plannedLanguages).toEqual(['en', 'zh-TW']);
    expect(row.requests).toBe(4);

    const letterOf = () =>
      (fixture?.deadLetters ?? []).find((d) => d.data.originalKey?.toString() === 'vendor:v-track');
    await waitFor('the dead letter of the refused report', () => letterOf() !== undefined);
    await new DeadLetterIndex(orm).add(deadLetterEntry(letterOf()!));
    const refusedRow = await orm.em.fork().findOneOrFail(ContentReport, { trackingId: refused.eventId });
    expect(refusedRow.refusedCode).toBe('MODULE_CONFLICT');
    expect(refusedRow.plannedAt).toBeNull();
  });

  it('dead-letters CONTENT_INVALID, storing nothing, a change produced as docs/pipeline.md shows with a type the API could not read', async () => {
    // The example a business system follows, run as it documents, with the type spelled `Vendor`:
    // GET /api/v1/content/Vendor/{id} could never answer it, so the planner must not store it.
    const { stdout } = await promisify(execFile)(
      `${REPO_ROOT}node_modules/.bin/tsx`,
      [
        '--conditions=@tp/source',
        'scripts/examples/produce-content-changed.ts',
        'v-upper',
        '--type',
        'Vendor',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, KAFKA_BROKERS: testBrokers().join(','), KAFKA_TOPIC_PREFIX: prefix },
      },
    );
    expect(stdout).toMatch(/^sent ContentChanged [0-9a-f-]{36} for Vendor v-upper$/m);
    await caughtUp('planner', 'contentChanged');
    const letterOf = () =>
      (fixture?.deadLetters ?? []).find((d) => d.data.originalKey?.toString() === 'Vendor:v-upper');
    await waitFor('the dead letter of the Vendor change', () => letterOf() !== undefined);
    expect(letterOf()?.data).toMatchObject({
      errorCode: 'CONTENT_INVALID',
      errorMessage: 'entityType: must be 1-100 characters of a-z, 0-9, _ and -',
      attempts: 1,
    });
    expect(await orm.em.fork().count(SourceContent, { entityId: 'v-upper' })).toBe(0);
    expect(await orm.em.fork().count(ContentTranslation, { entityId: 'v-upper' })).toBe(0);
  });
});
