import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TranslationCompletedData } from '@tp/contracts';
import { connectDatabase, ContentTranslation, type Orm } from '@tp/db';
import type { IncomingMessage } from '@tp/kafka';
import { contentReadCacheKey } from '@tp/pipeline';
import { createRedis, type RedisClient } from '@tp/redis';
import { EventCodec, newEvent } from '@tp/schemas';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { TranslationCompletedHandler } from './translation-completed.handler.js';
import { TranslationWriter } from './translation-writer.js';

// Which results drop a read-cache entry, on a real Postgres and Redis: the DELs Redis runs are
// watched with MONITOR.
const codec = new EventCodec();
const prefix = `test:${randomBytes(4).toString('hex')}:`;
let db: TestDatabase;
let orm: Orm;
let redis: RedisClient;
let monitor: RedisClient;
let handler: TranslationCompletedHandler;
const deleted: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  redis = createRedis({ url, logger: silentLogger() });
  monitor = createRedis({ url, logger: silentLogger() });
  await Promise.all([redis.connect(), monitor.connect()]);
  // A line reads: <time> [<db> <client>] "DEL" "<key>" ...
  await monitor.monitor((line) => {
    const [, command, , ...rest] = line.split('"');
    if (command?.toLowerCase() === 'del') deleted.push(...rest.filter((key) => key.startsWith(prefix)));
  });
  const cache = new ReadCacheInvalidator({
    redis,
    keyPrefix: prefix,
    logger: silentLogger(),
    component: 'test',
  });
  handler = new TranslationCompletedHandler({ codec, writer: new TranslationWriter(orm), cache });
});

afterAll(async () => {
  await Promise.all([redis?.close(), monitor?.close()]);
  await orm?.close(true);
  await db?.drop();
});

function message(over: Partial<TranslationCompletedData>): IncomingMessage {
  const event = newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'en',
      targetLang: 'es',
      translatedText: 'Hola',
      sourceHash: 'a'.repeat(64),
      sourceVersion: 1,
      engine: 'apertium',
      truncated: false,
      detectedSourceLang: null,
      requestedAt: 1_000,
      fallback: false,
      moreResults: [],
      failures: [],
      ...over,
    },
    { correlationId: 'corr-1' },
  );
  const { value, headers } = codec.encode(event);
  return { topic: 't', partition: 0, offset: '0', key: null, value, headers, timestamp: '0' };
}

const storedText = async (entityId: string) =>
  (await orm.em.fork().find(ContentTranslation, { entityId })).map((row) => row.translatedText);

describe('TranslationCompletedHandler: the read cache', () => {
  it("drops a reported entity's merged view after writing its result", async () => {
    await handler.handle(message({ entityType: 'vendor', entityId: 'v-1' }));

    expect(await storedText('v-1')).toEqual(['Hola']);
    await waitFor('the DEL', () => deleted.includes(contentReadCacheKey(prefix, 'vendor', 'v-1')));
  });

  it('asks Redis for nothing after a free-text result, which has no merged view', async () => {
    await handler.handle(message({ entityType: 'text', entityId: 'h-1', field: 'text', sourceVersion: 0 }));
    // A reported entity's result after it: its DEL shows that MONITOR has seen what came before.
    await handler.handle(message({ entityType: 'vendor', entityId: 'v-2' }));

    expect(await storedText('h-1')).toEqual(['Hola']);
    await waitFor('the DEL', () => deleted.includes(contentReadCacheKey(prefix, 'vendor', 'v-2')));
    expect(deleted).not.toContain(contentReadCacheKey(prefix, 'text', 'h-1'));
  });
});

describe('TranslationCompletedHandler: a result of several fields (v5)', () => {
  it('writes each field of the result as its row, all in one statement, and drops the read cache once', async () => {
    const more = (field: string, translatedText: string) => ({
      entityId: null,
      field,
      translatedText,
      sourceHash: 'b'.repeat(64),
      sourceVersion: 1,
      engine: 'apertium',
      truncated: false,
      fallback: false,
      detectedSourceLang: null,
    });
    const upserts = jest.spyOn(
      TranslationWriter.prototype as unknown as { upsert: (rows: readonly unknown[]) => Promise<unknown> },
      'upsert',
    );
    try {
      await handler.handle(
        message({ entityId: 'v-batch', moreResults: [more('about', 'Acerca'), more('slogan', 'Lema')] }),
      );
      expect(upserts).toHaveBeenCalledTimes(1);
      expect(upserts.mock.calls[0]?.[0]).toHaveLength(3);
    } finally {
      upserts.mockRestore();
    }
    const stored = await orm.em
      .fork()
      .find(ContentTranslation, { entityId: 'v-batch' }, { orderBy: { field: 'asc' } });
    expect(stored.map((row) => [row.field, row.translatedText, row.engine])).toEqual([
      ['about', 'Acerca', 'apertium'],
      ['name', 'Hola', 'apertium'],
      ['slogan', 'Lema', 'apertium'],
    ]);
    await waitFor('the DEL', () => deleted.includes(contentReadCacheKey(prefix, 'vendor', 'v-batch')));
    expect(deleted.filter((key) => key === contentReadCacheKey(prefix, 'vendor', 'v-batch'))).toHaveLength(1);
  });

  it('projects a result of the old shape (v4, one field) still on the topic', async () => {
    const v4 = codec.registry.versions('TranslationCompleted')[3]!;
    const event = newEvent(
      'TranslationCompleted',
      {
        entityType: 'vendor',
        entityId: 'v-old',
        field: 'name',
        sourceLang: 'en',
        targetLang: 'es',
        translatedText: 'Hola de antes',
        sourceHash: 'a'.repeat(64),
        sourceVersion: 1,
        engine: 'apertium',
        truncated: false,
        detectedSourceLang: null,
        requestedAt: 1_000,
        fallback: false,
        moreResults: [],
        failures: [],
      },
      { correlationId: 'corr-old' },
    );
    const { moreResults: _more, failures: _failures, ...v4Data } = event.data;
    const value = v4.type.toBuffer({ ...event, eventVersion: 4, data: v4Data });
    const headers = { ...codec.encode(event).headers, 'tp-schema-fingerprint': v4.fingerprint };
    await handler.handle({
      topic: 't',
      partition: 0,
      offset: '1',
      key: null,
      value,
      headers,
      timestamp: '0',
    });
    expect(await storedText('v-old')).toEqual(['Hola de antes']);
  });
});
