import { hash, randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName, type TranslationRequested } from '@tp/contracts';
import {
  connectDatabase,
  ContentTranslation,
  OutboxMessage,
  SourceContent,
  TranslationConfig,
  type Orm,
} from '@tp/db';
import { closeRedis, createRedis, type RedisClient } from '@tp/redis';
import { createLogger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { TranslationRequests } from '../../../content/read-content/translation-requests.js';
import { GlossaryRetranslation } from './glossary-retranslation.js';

// Glossary writes through the real gateway, on its own Postgres database: stored content of the
// pair whose source text holds a changed term is requested again through the outbox, throttled in
// the real Redis.
let gateway: TestGateway;
let orm: Orm;
let redis: RedisClient;
const codec = new EventCodec();
const topicPrefix = uniquePrefix('glossary-retranslation');
const sha = (text: string) => hash('sha256', text, 'hex');
const BASE = '/api/admin/translate/glossaries';

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: topicPrefix });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  redis = createRedis({ url: gateway.config.REDIS_URL, logger: createLogger('test', 'silent') });
  await redis.connect();
  await orm.em
    .fork()
    .nativeUpdate(TranslationConfig, { id: 1 }, { enabled: true, targetLanguages: ['es', 'fr'] });
  // Products in English, translated into Spanish (and one into French).
  await stored('p-cloud', 'Acme Cloud for teams', 'es');
  await stored('p-phone', 'Plain phone', 'es');
  await stored('p-cloudy', 'Acme Cloudy weather', 'es'); // not the whole word
  await stored('p-human', 'Acme Cloud by hand', 'es', { origin: 'human' });
  await stored('p-outdated', 'Acme Cloud, new text', 'es', { madeFrom: 'old text' });
  await stored('p-french', 'Acme Cloud en français', 'fr');
});

afterAll(async () => {
  const keys = await redis.keys(`${gateway.config.REDIS_KEY_PREFIX}*`);
  if (keys.length > 0) await redis.del(keys);
  await closeRedis(redis);
  await orm?.close(true);
  await gateway?.close();
});

/** A source field and its stored translation into `lang` (made from `madeFrom`, the text by default). */
async function stored(
  id: string,
  text: string,
  lang: string,
  { origin = 'machine', madeFrom = text }: { origin?: string; madeFrom?: string } = {},
) {
  const em = orm.em.fork();
  const at = { entityType: 'product', entityId: id, field: 'title', sourceLang: 'en', sourceVersion: 3 };
  em.create(SourceContent, { ...at, module: 'catalog', text, sourceHash: sha(text) });
  em.create(ContentTranslation, {
    ...at,
    targetLang: lang,
    translatedText: `(${lang}) ${text}`,
    sourceHash: sha(madeFrom),
    engine: 'test',
    origin,
    lastEventId: randomUUID(),
  });
  await em.flush();
}

async function call(method: 'POST' | 'PUT' | 'DELETE', path: string, requestId: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gateway.keys.admin}`,
      'x-request-id': requestId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: { id: string } } };
}

/** TranslationRequested events in the outbox made for this correlation id. */
async function requested(correlationId: string): Promise<TranslationRequested[]> {
  const rows = await orm.em
    .fork()
    .find(OutboxMessage, { eventType: 'TranslationRequested' }, { orderBy: { id: 'asc' } });
  return rows
    .map((row) => ({ topic: row.topic, event: codec.decode(Buffer.from(row.payload), row.headers) }))
    .filter(({ topic }) => topic === topicName('translationRequested', topicPrefix))
    .map(({ event }) => event as TranslationRequested)
    .filter((event) => event.correlationId === correlationId);
}

const ids = (events: readonly TranslationRequested[]) => events.map((e) => e.data.entityId).sort();

describe('glossary edits request affected content again', () => {
  let glossaryId: string;

  it('on create: the current machine translations of the pair whose text holds a term, nothing else', async () => {
    const created = await call('POST', BASE, 'req-gl-create', {
      name: 'Brand',
      source_lang: 'en',
      target_lang: 'es',
      entries: [{ source: 'Acme Cloud', target: 'Acme Nube' }],
    });
    expect(created.status).toBe(201);
    glossaryId = created.body.data.id;

    const events = await requested('req-gl-create');
    expect(ids(events)).toEqual(['p-cloud']);
    expect(events[0]?.data).toMatchObject({
      entityType: 'product',
      field: 'title',
      sourceLang: 'en',
      targetLang: 'es',
      text: 'Acme Cloud for teams',
      sourceHash: sha('Acme Cloud for teams'),
      sourceVersion: 3,
    });
  });

  it('on update: only the fields holding a term that was added or changed; a rename requests nothing', async () => {
    const renamed = await call('PUT', `${BASE}/${glossaryId}`, 'req-gl-rename', { name: 'Brand terms' });
    const updated = await call('PUT', `${BASE}/${glossaryId}`, 'req-gl-update', {
      entries: 'Acme Cloud,Acme Nube\nphone,teléfono',
    });

    expect([renamed.status, updated.status]).toEqual([200, 200]);
    expect(await requested('req-gl-rename')).toEqual([]);
    expect(ids(await requested('req-gl-update'))).toEqual(['p-phone']);
  });

  it('on delete: the fields holding any of its terms', async () => {
    const deleted = await call('DELETE', `${BASE}/${glossaryId}`, 'req-gl-delete');

    expect(deleted.status).toBe(200);
    expect(ids(await requested('req-gl-delete'))).toEqual(['p-cloud', 'p-phone']);
  });
});

describe('the bounds of one edit', () => {
  const retranslation = (limits: { batchRows: number; maxScannedRows: number; maxRequested: number }) =>
    new GlossaryRetranslation(
      orm,
      (state) =>
        new TranslationRequests({
          orm,
          redis,
          codec,
          keyPrefix: `${gateway.config.REDIS_KEY_PREFIX}bound:${state}:`,
          topicPrefix,
          throttleSeconds: 60,
        }),
      undefined,
      limits,
    );
  const edit = (state: string) => ({
    sourceLang: 'en',
    targetLang: 'es',
    state,
    before: [],
    after: [
      { source: 'Acme Cloud', target: 'X' },
      { source: 'phone', target: 'Y' },
    ],
  });

  it('requests at most maxRequested fields, in batches', async () => {
    const count = await retranslation({ batchRows: 1, maxScannedRows: 100, maxRequested: 1 }).afterEdit(
      edit('1'),
      'req-bound-1',
    );

    expect(count).toBe(1);
    expect(await requested('req-bound-1')).toHaveLength(1);
  });

  it('reads at most maxScannedRows stored translations', async () => {
    // p-cloud and p-phone are the first two rows; one row read finds one of them.
    const count = await retranslation({ batchRows: 10, maxScannedRows: 1, maxRequested: 100 }).afterEdit(
      edit('2'),
      'req-bound-2',
    );

    expect(count).toBe(1);
  });

  it('requests a field once per glossary version however often the edit is swept (the throttle)', async () => {
    const limits = { batchRows: 2, maxScannedRows: 100, maxRequested: 100 };
    const first = await retranslation(limits).afterEdit(edit('3'), 'req-bound-3');
    const again = await retranslation(limits).afterEdit(edit('3'), 'req-bound-3');

    expect([first, again]).toEqual([2, 0]);
    expect(ids(await requested('req-bound-3'))).toEqual(['p-cloud', 'p-phone']);
  });
});
