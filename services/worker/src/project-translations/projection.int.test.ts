import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  consumerGroup,
  topicName,
  type DeadLetter,
  type TranslationCompleted,
  type TranslationCompletedData,
} from '@tp/contracts';
import { ContentTranslation, TranslationConfig, type Orm } from '@tp/db';
import type { KafkaProducer } from '@tp/kafka';
import { contentReadCacheKey, translationMessageKey, upsertTranslations } from '@tp/pipeline';
import { closeRedis, connectInBackground, createRedis, type RedisClient } from '@tp/redis';
import { EventCodec, newEvent } from '@tp/schemas';
import type { Admin } from 'kafkajs';
import type { Registry } from 'prom-client';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { startPipelineTask, type PipelineTaskFixture } from '@tp/test/harness/pipeline-task';
import { editorTranslation } from '@tp/test/harness/translation-edits';
import { waitFor } from '@tp/test/harness/wait';
import { projectionTask } from './projection.task.js';
import { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { TranslationCompletedHandler } from './translation-completed.handler.js';
import { TranslationWriter } from './translation-writer.js';

const codec = new EventCodec();
const prefix = uniquePrefix('projection');
const completedTopic = topicName('translationCompleted', prefix);
let fixture: PipelineTaskFixture | undefined;
let orm: Orm;
let admin: Admin;
let redis: RedisClient;
let producer: KafkaProducer;
let metrics: Registry;
let keyPrefix: string;
let deadLetters: readonly DeadLetter[];

beforeAll(async () => {
  fixture = await startPipelineTask('projection', {
    prefix,
    poolMax: 4,
    task: (context) =>
      projectionTask(context, {
        topicPrefix: prefix,
        redisKeyPrefix: context.keyPrefix,
        concurrency: 6,
      }),
  });
  ({ orm, admin, redis, producer, metrics, keyPrefix, deadLetters } = fixture);
});

afterAll(() => fixture?.close());

function completed(
  entityId: string,
  sourceVersion: number,
  over: Partial<TranslationCompletedData> = {},
): TranslationCompleted {
  return newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId,
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: `Hello v${sourceVersion}`,
      sourceHash: 'a'.repeat(64),
      sourceVersion,
      engine: 'offline',
      truncated: false,
      detectedSourceLang: null,
      requestedAt: 1_000 + sourceVersion,
      fallback: false,
      moreResults: [],
      failures: [],
      ...over,
    },
    { correlationId: `corr-${entityId}` },
  );
}

const keyOf = ({ data }: TranslationCompleted) => translationMessageKey(data);

/** Produces results as the translator does, keyed entityType:entityId:field:targetLang. */
async function send(...events: TranslationCompleted[]): Promise<void> {
  await producer.send(
    completedTopic,
    events.map((event) => ({ key: keyOf(event), ...codec.encode(event) })),
  );
}

/** Waits until the projection committed every message on its topic. */
async function projectionCaughtUp(): Promise<void> {
  const groupId = consumerGroup('projection', prefix);
  await waitFor('projection caught up', async () => {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(completedTopic),
      admin.fetchOffsets({ groupId, topics: [completedTopic] }),
    ]);
    return ends.every((end) => {
      const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
      return BigInt(end.high) === 0n || BigInt(done) >= BigInt(end.high);
    });
  });
}

const rows = (entityId: string) =>
  orm.em.fork().find(ContentTranslation, { entityId }, { orderBy: { field: 'asc', targetLang: 'asc' } });

const counter = async (name: string) =>
  (await metrics.getSingleMetric(name)?.get())?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;

/** A human translation of source version `sourceVersion`, as PUT .../translations/{lang} stores it. */
async function human(entityId: string, sourceVersion: number, targetLang = 'en'): Promise<void> {
  await upsertTranslations(orm.em.fork(), [editorTranslation(entityId, sourceVersion, { targetLang })]);
}

const setHumanOnly = (languages: string[]) =>
  orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { humanOnlyLanguages: languages });

describe('projection: human translations and weak results (issue #19)', () => {
  it('never replaces a human translation with a machine result of the same source version, replayed or retranslated', async () => {
    const before = completed('v-human', 2, { requestedAt: 1 });
    await human('v-human', 2);
    const retranslated = completed('v-human', 2, {
      translatedText: 'machine',
      requestedAt: Date.now() + 60_000,
    });
    // A late result of an earlier request, the retranslation's result, and both replayed.
    await send(before, retranslated, before, retranslated);
    await projectionCaughtUp();
    expect(await rows('v-human')).toMatchObject([
      { translatedText: 'By hand', origin: 'human', engine: 'human', sourceVersion: 2 },
    ]);
  });

  it('replaces a (stale) human translation with the machine one of a newer source version, except in a human-only language', async () => {
    await human('v-newer-source', 2, 'en');
    await human('v-newer-source', 2, 'ja');
    await setHumanOnly(['ja']);
    try {
      await send(
        completed('v-newer-source', 3, { targetLang: 'en' }),
        completed('v-newer-source', 3, { targetLang: 'ja' }),
      );
      await projectionCaughtUp();
    } finally {
      await setHumanOnly([]);
    }
    expect(await rows('v-newer-source')).toMatchObject([
      { targetLang: 'en', translatedText: 'Hello v3', origin: 'machine', writtenBy: null, stale: false },
      { targetLang: 'ja', translatedText: 'By hand', origin: 'human', sourceVersion: 2 },
    ]);
  });

  it('replaces a truncated result with a whole one of the same version, never the other way round', async () => {
    await send(
      completed('v-weak', 1, { translatedText: 'Cut', engine: 'mymemory', truncated: true, requestedAt: 10 }),
    );
    await projectionCaughtUp();
    await send(completed('v-weak', 1, { translatedText: 'Whole', engine: 'apertium', requestedAt: 20 }));
    await projectionCaughtUp();
    expect(await rows('v-weak')).toMatchObject([
      { translatedText: 'Whole', engine: 'apertium', truncated: false },
    ]);
    // A later request answered by the cutting engine again (the better one was down) changes nothing.
    await send(
      completed('v-weak', 1, {
        translatedText: 'Cut again',
        engine: 'mymemory',
        truncated: true,
        requestedAt: 30,
      }),
    );
    await projectionCaughtUp();
    expect(await rows('v-weak')).toMatchObject([
      { translatedText: 'Whole', engine: 'apertium', truncated: false },
    ]);
  });

  it('stores a fallback result flagged, replaces it with a first-choice one, and never the other way round', async () => {
    const weak = { translatedText: 'Weak', engine: 'mymemory', fallback: true };
    await send(completed('v-fallback', 1, { ...weak, requestedAt: 10 }));
    await projectionCaughtUp();
    expect(await rows('v-fallback')).toMatchObject([{ ...weak, truncated: false }]);
    // The re-request's answer, from the engine that failed before.
    await send(completed('v-fallback', 1, { translatedText: 'Strong', engine: 'deepl', requestedAt: 20 }));
    await projectionCaughtUp();
    const strong = { translatedText: 'Strong', engine: 'deepl', fallback: false };
    expect(await rows('v-fallback')).toMatchObject([strong]);
    // A later request answered by the fallback again (the primary was down by then) changes nothing.
    await send(completed('v-fallback', 1, { ...weak, translatedText: 'Weak again', requestedAt: 30 }));
    await projectionCaughtUp();
    expect(await rows('v-fallback')).toMatchObject([strong]);
  });

  it('ranks truncated below fallback: a whole fallback result replaces a truncated one, not the reverse', async () => {
    const cut = { translatedText: 'Cut', engine: 'mymemory', truncated: true };
    await send(completed('v-ranked', 1, { ...cut, requestedAt: 10 }));
    await projectionCaughtUp();
    const whole = { translatedText: 'Whole', engine: 'apertium', fallback: true, truncated: false };
    await send(completed('v-ranked', 1, { ...whole, requestedAt: 20 }));
    await projectionCaughtUp();
    expect(await rows('v-ranked')).toMatchObject([whole]);
    await send(completed('v-ranked', 1, { ...cut, requestedAt: 30 }));
    await projectionCaughtUp();
    expect(await rows('v-ranked')).toMatchObject([whole]);
  });

  it('keeps the first-choice result when it and a later fallback one arrive in the same batch', async () => {
    await send(
      completed('v-batch', 1, { translatedText: 'Strong', engine: 'deepl', requestedAt: 10 }),
      completed('v-batch', 1, {
        translatedText: 'Weak',
        engine: 'mymemory',
        fallback: true,
        requestedAt: 20,
      }),
    );
    await projectionCaughtUp();
    expect(await rows('v-batch')).toMatchObject([{ translatedText: 'Strong', fallback: false }]);
  });
});

describe('projection', () => {
  it('keeps v2 when the v1 result arrives after it', async () => {
    const ignoredBefore = await counter('projection_results_ignored_total');
    const v2 = completed('v-order', 2);
    await send(v2);
    await projectionCaughtUp();
    await send(completed('v-order', 1));
    await projectionCaughtUp();

    const [row, ...others] = await rows('v-order');
    expect(others).toEqual([]);
    expect(row).toMatchObject({ sourceVersion: 2, translatedText: 'Hello v2', lastEventId: v2.eventId });
    expect((await counter('projection_results_ignored_total')) - ignoredBefore).toBe(1);
  });

  it('replaces an older version, and a retranslation of the same version', async () => {
    const writtenBefore = await counter('projection_rows_written_total');
    await send(completed('v-newer', 1));
    await projectionCaughtUp();
    await send(completed('v-newer', 2));
    await projectionCaughtUp();
    expect((await rows('v-newer')).map((r) => r.translatedText)).toEqual(['Hello v2']);

    const retranslated = completed('v-newer', 2, {
      translatedText: 'Hi',
      engine: 'deepl',
      requestedAt: 5000,
    });
    await send(retranslated);
    await projectionCaughtUp();
    expect(await rows('v-newer')).toMatchObject([
      { translatedText: 'Hi', engine: 'deepl', sourceVersion: 2, lastEventId: retranslated.eventId },
    ]);
    expect((await counter('projection_rows_written_total')) - writtenBefore).toBe(3);
  });

  it('keeps a retranslation when a late or replayed result of the same version from an earlier request arrives', async () => {
    const first = completed('v-late', 4, { translatedText: 'first', requestedAt: 1000 });
    const retranslated = completed('v-late', 4, { translatedText: 'retranslated', requestedAt: 2000 });
    await send(retranslated);
    await projectionCaughtUp();
    // The first request's result comes late (a slow retry), then again (replayed from the dead letters).
    await send(first);
    await send(first);
    await projectionCaughtUp();
    expect(await rows('v-late')).toMatchObject([
      {
        translatedText: 'retranslated',
        sourceVersion: 4,
        requestedAt: 2000,
        lastEventId: retranslated.eventId,
      },
    ]);
    // A second result of the retranslation's own request (its batch was translated again) changes nothing.
    await send(completed('v-late', 4, { translatedText: 'again', requestedAt: 2000 }));
    await projectionCaughtUp();
    expect((await rows('v-late'))[0]?.translatedText).toBe('retranslated');
    // Later traffic still flows: a newer version replaces it.
    await send(completed('v-late', 5, { requestedAt: 1500 }));
    await projectionCaughtUp();
    expect((await rows('v-late'))[0]).toMatchObject({ sourceVersion: 5, translatedText: 'Hello v5' });
  });

  it('leaves one unchanged row when the same event arrives twice', async () => {
    const event = completed('v-twice', 3);
    await send(event);
    await projectionCaughtUp();
    const [first] = await rows('v-twice');

    await send(event, event);
    await projectionCaughtUp();
    const again = await rows('v-twice');
    expect(again).toHaveLength(1);
    expect(again[0]).toEqual(first);
  });

  it('deletes the entity read cache after projecting', async () => {
    const cacheKey = contentReadCacheKey(keyPrefix, 'vendor', 'v-cached');
    await redis.hSet(cacheKey, { en: '{"name":"old"}', ja: '{"name":"old"}' });
    await send(completed('v-cached', 1));
    await projectionCaughtUp();
    expect(await rows('v-cached')).toHaveLength(1);
    expect(await redis.exists(cacheKey)).toBe(0);
  });

  it('stores text exactly as sent, quotes, backslashes, placeholders and all', async () => {
    const text = `It's a "test" \\ with ? and $1 and ?? and 😀\nline two`;
    await send(completed('v-text', 1, { translatedText: text, targetLang: 'zh-cn', truncated: true }));
    await projectionCaughtUp();
    expect(await rows('v-text')).toMatchObject([
      { translatedText: text, targetLang: 'zh-CN', truncated: true },
    ]);
  });

  it('ends with the newest version of every field and language when results arrive concurrently and out of order', async () => {
    const events: TranslationCompleted[] = [];
    for (let entity = 0; entity < 10; entity++) {
      for (const field of ['name', 'description']) {
        for (const targetLang of ['en', 'ja', 'de']) {
          for (const version of [3, 1, 2]) {
            events.push(completed(`v-many-${entity}`, version, { field, targetLang }));
          }
        }
      }
    }
    await send(...events);
    await projectionCaughtUp();
    const stored = await orm.em.fork().find(ContentTranslation, { entityId: { $like: 'v-many-%' } });
    expect(stored).toHaveLength(60);
    expect(stored.every((r) => r.sourceVersion === 3 && r.translatedText === 'Hello v3')).toBe(true);
  });

  it('sends a result it can never store to the dead letters and handles the next one', async () => {
    const unknownLanguage = completed('v-poison', 1, { targetLang: 'klingon' });
    const tooLong = completed('v-poison', 1, { engine: 'e'.repeat(51), targetLang: 'ja' });
    const next = completed('v-poison', 1, { targetLang: 'fr' });
    // One key, so one partition: the good result comes after the poison ones.
    const key = 'vendor:v-poison:name:fr';
    await producer.send(completedTopic, [
      { key, ...codec.encode(unknownLanguage) },
      { key, ...codec.encode(tooLong) },
      { key, ...codec.encode(next) },
    ]);
    await projectionCaughtUp();
    expect((await rows('v-poison')).map((r) => r.targetLang)).toEqual(['fr']);
    await waitFor('two dead letters', () => deadLetters.length >= 2);
    expect(deadLetters.map((d) => d.data.errorCode)).toEqual(['UNSUPPORTED_LANGUAGE', 'RESULT_INVALID']);
    expect(deadLetters[0]?.data.consumerGroup).toBe(consumerGroup('projection', prefix));
  });

  it('still projects while Redis is down, without failing the message', async () => {
    const down = createRedis({ url: 'redis://127.0.0.1:1/0', logger: silentLogger(), timeoutMs: 200 });
    connectInBackground(down);
    try {
      const handler = new TranslationCompletedHandler({
        codec,
        writer: new TranslationWriter(orm),
        cache: new ReadCacheInvalidator({
          redis: down,
          keyPrefix,
          logger: silentLogger(),
          component: 'projection',
        }),
      });
      const event = completed('v-no-redis', 1);
      await handler.handle({
        topic: completedTopic,
        partition: 0,
        offset: '0',
        key: Buffer.from(keyOf(event)),
        ...codec.encode(event),
        timestamp: String(Date.now()),
      });
      expect(await rows('v-no-redis')).toHaveLength(1);
    } finally {
      await closeRedis(down);
    }
  });
});
