// The content pipeline end to end, as processes: gateway (command, query, admin), worker (relay,
// planner, projection, dead-letter index) and translator (engine consumers), on real Kafka, Postgres
// and Redis. The translator's only engine is the LibreTranslate double, which answers
// `[<target>] <text>` for text outside its phrasebook, so every stored translation shows its language.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { connectDatabase, ContentTranslation, OutboxMessage, type Orm } from '@tp/db';
import { KafkaProducer } from '@tp/kafka';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli, pipelineEnv } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { duplicates, engineRequestsPerText, messagesPerKey, pipelineIdle } from '../harness/topic-census.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('pipe');
const kafka = testKafka('pipeline-e2e');
let db: TestDatabase;
let orm: Orm;
let libre: LibreTranslateDouble;
let env: NodeJS.ProcessEnv;
const processes = new Map<string, ServiceProcess>();
let ports: { gateway: number; worker: number; translator: number };
let adminKey: string;
let clientKey: string;

function start(name: 'gateway' | 'worker' | 'translator'): ServiceProcess {
  const proc = runService(name, env, ports[name]!);
  processes.set(name, proc);
  return proc;
}

async function healthy(proc: ServiceProcess): Promise<void> {
  await waitForHealth(proc.url, proc);
}

const createKey = (role: 'admin' | 'client') => createKeyWithCli(db.url, role);

const gateway = () => processes.get('gateway')!.url;

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${gateway()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { code?: number; data: Data },
  };
}

/** The parts of the answers these tests read. */
interface Data {
  readonly tracking_id?: string;
  readonly entries?: readonly { readonly id: number; readonly error_code: string }[];
  readonly fields?: Readonly<Record<string, string>>;
  readonly [other: string]: unknown;
}

interface Row {
  field: string;
  target_lang: string;
  translated_text: string;
  source_version: string;
  updated_at: Date;
}

async function rows(entityId: string): Promise<Row[]> {
  const found = await orm.em
    .fork()
    .find(
      ContentTranslation,
      { entityType: 'vendor', entityId },
      { orderBy: { field: 'asc', targetLang: 'asc' } },
    );
  return found.map((r) => ({
    field: r.field,
    target_lang: r.targetLang,
    translated_text: r.translatedText,
    source_version: String(r.sourceVersion),
    updated_at: r.updatedAt,
  }));
}

const entities = (label: string, n: number) => Array.from({ length: n }, (_, i) => `${label}-${i}`);

/** Reports `id` at version 1 with a name and a slogan that show the id. */
const reportEntity = (id: string) => report(id, 1, { name: `公司${id}`, slogan: `口号${id}` });

/** Stored translations of the entities whose id starts with `label-`. */
async function storedCount(label: string): Promise<number> {
  return orm.em.fork().count(ContentTranslation, { entityType: 'vendor', entityId: { $like: `${label}-%` } });
}

async function unpublishedOutboxRows(): Promise<number> {
  return orm.em.fork().count(OutboxMessage, { publishedAt: null });
}

/**
 * Every field of every entity in en, fr and de, once, with its text, once the pipeline is idle; the
 * TranslationRequested keys of those fields each at least once (duplicates are printed, not failed).
 */
async function expectAllStored(label: string, ids: readonly string[]): Promise<void> {
  const expected = ids
    .flatMap((id) =>
      [
        ['name', `公司${id}`],
        ['slogan', `口号${id}`],
      ].flatMap(([field, text]) =>
        ['de', 'en', 'fr'].map((lang) => `${id} ${field} ${lang} [${lang}] ${text}`),
      ),
    )
    .sort();
  await waitFor(
    `${expected.length} ${label} rows`,
    async () => (await storedCount(label)) >= expected.length,
    90_000,
    200,
  );
  await waitFor('the pipeline idle', () => pipelineIdle(kafka, orm, prefix), 60_000, 200);
  const stored = await orm.em
    .fork()
    .find(ContentTranslation, { entityType: 'vendor', entityId: { $like: `${label}-%` } });
  expect(stored.map((r) => `${r.entityId} ${r.field} ${r.targetLang} ${r.translatedText}`).sort()).toEqual(
    expected,
  );
  const requested = await messagesPerKey(kafka, topicName('translationRequested', prefix));
  const mine = new Map([...requested].filter(([key]) => key.startsWith(`vendor:${label}-`)));
  // One request per entity and language, carrying its fields.
  const entityLanguages = new Set(
    expected.map((row) =>
      row
        .split(' ', 3)
        .filter((_, i) => i !== 1)
        .join(' '),
    ),
  );
  expect(mine.size).toBe(entityLanguages.size);
  console.log(`${label}: duplicate requests ${JSON.stringify(duplicates(mine))}`);
}

async function report(id: string, version: number, fields: Record<string, string>) {
  const res = await call('POST', `/api/v1/content/catalog/vendor/${id}`, clientKey, {
    source_lang: 'zh-CN',
    source_version: version,
    fields,
  });
  expect(res.status).toBe(202);
  return res.body.data.tracking_id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  libre = await startLibreTranslateDouble();
  await createTopics(kafka, prefix);
  ports = { gateway: await freePort(), worker: await freePort(), translator: await freePort() };
  env = {
    ...pipelineEnv({
      databaseUrl: db.url,
      kafkaBrokers: process.env.KAFKA_BROKERS,
      topicPrefix: prefix,
      ports,
      libreTranslateUrl: libre.url,
    }),
    // Fail fast enough for a test: two attempts, short backoff.
    TRANSLATION_MAX_ATTEMPTS: '2',
    TRANSLATION_RETRY_BACKOFF_MS: '100',
    TRANSLATION_RETRY_MAX_BACKOFF_MS: '200',
  };
  for (const name of ['translator', 'worker', 'gateway'] as const) start(name);
  for (const proc of processes.values()) await healthy(proc);
  [adminKey, clientKey] = await Promise.all([createKey('admin'), createKey('client')]);
  const config = await call('PUT', '/api/admin/translate/config', adminKey, {
    target_languages: ['en', 'fr', 'de'],
    enabled: true,
  });
  expect(config.status).toBe(200);
}, 150_000);

afterAll(async () => {
  for (const proc of processes.values()) proc.child.kill('SIGKILL');
  await libre?.close();
  await orm?.close(true);
  await db?.drop();
});

describe('content pipeline (gateway, worker and translator as processes)', () => {
  it('a vendor with 2 fields and 3 target languages yields 6 rows, merged by x-language', async () => {
    await report('v-1', 1, { name: '华为技术', slogan: '构建万物互联的智能世界' });
    await waitFor('6 translation rows', async () => (await rows('v-1')).length === 6, 30_000);
    const stored = await rows('v-1');
    expect(stored.map((r) => `${r.field}:${r.target_lang}`)).toEqual([
      'name:de',
      'name:en',
      'name:fr',
      'slogan:de',
      'slogan:en',
      'slogan:fr',
    ]);
    expect(stored.find((r) => r.field === 'name' && r.target_lang === 'fr')?.translated_text).toBe(
      '[fr] 华为技术',
    );

    const merged = await call('GET', '/api/v1/vendors/v-1', clientKey, undefined, { 'x-language': 'fr-CA' });
    expect(merged.status).toBe(200);
    expect(merged.headers.get('content-language')).toBe('fr');
    expect(merged.body.data).toMatchObject({
      id: 'v-1',
      language: 'fr',
      fields: { name: '[fr] 华为技术', slogan: '[fr] 构建万物互联的智能世界' },
      untranslated: [],
    });
    const source = await call('GET', '/api/v1/vendors/v-1', clientKey);
    expect(source.body.data.fields).toEqual({ name: '华为技术', slogan: '构建万物互联的智能世界' });
  }, 60_000);

  it('changing one field re-translates only that field: 3 requests, 3 engine calls, the other rows untouched', async () => {
    const idle = () => pipelineIdle(kafka, orm, prefix);
    await waitFor('v-1 translated', async () => (await rows('v-1')).length === 6, 30_000);
    await waitFor('the pipeline idle', idle, 30_000, 100);
    const before = await rows('v-1');
    const requestedBefore = await messagesPerKey(kafka, topicName('translationRequested', prefix));
    const engineBefore = libre.requests.length;
    await report('v-1', 2, { name: '华为技术', slogan: '一个新的口号' });
    await waitFor(
      'slogan at version 2 in 3 languages',
      async () =>
        (await rows('v-1')).filter((r) => r.field === 'slogan' && r.source_version === '2').length === 3,
      30_000,
    );
    // Nothing left in flight: a wrong re-translation of the name would have landed by now.
    await waitFor('the pipeline idle after the change', idle, 30_000, 100);
    const after = await rows('v-1');
    const names = (list: Row[]) => list.filter((r) => r.field === 'name');
    // The unchanged field was not translated again: same rows, same version, same update time.
    expect(names(after)).toEqual(names(before));
    expect(after.find((r) => r.field === 'slogan' && r.target_lang === 'de')?.translated_text).toBe(
      '[de] 一个新的口号',
    );
    // Counted: one new request per language of the changed field, and one engine call each.
    const requestedAfter = await messagesPerKey(kafka, topicName('translationRequested', prefix));
    const newRequests = [...requestedAfter]
      .map(([key, n]) => [key, n - (requestedBefore.get(key) ?? 0)] as const)
      .filter(([, n]) => n > 0);
    expect(Object.fromEntries(newRequests)).toEqual({
      'vendor:v-1:de': 1,
      'vendor:v-1:en': 1,
      'vendor:v-1:fr': 1,
    });
    expect(Object.fromEntries(engineRequestsPerText(libre.requests.slice(engineBefore)))).toEqual({
      'de 一个新的口号': 1,
      'en 一个新的口号': 1,
      'fr 一个新的口号': 1,
    });
    const merged = await call('GET', '/api/v1/vendors/v-1', clientKey, undefined, { 'x-language': 'de' });
    expect(merged.body.data.fields?.slogan).toBe('[de] 一个新的口号');
  }, 90_000);

  it('a report is tracked to done; a deletion removes the entity, reads answer 404, and a newer report brings it back', async () => {
    const trackingId = await report('v-del', 1, { name: '小米', slogan: '为发烧而生' });
    const tracking = (key = clientKey) => call('GET', `/api/v1/content/tracking/${trackingId}`, key);
    await waitFor('the report done', async () => (await tracking()).body.data.status === 'done', 30_000);
    expect((await tracking()).body.data).toMatchObject({ kind: 'change', requests: 6, translated: 6 });
    expect((await tracking(await createKey('client'))).status).toBe(404);
    const read = () => call('GET', '/api/v1/vendors/v-del', clientKey, undefined, { 'x-language': 'fr' });
    expect((await read()).body.data.fields).toEqual({ name: '[fr] 小米', slogan: '[fr] 为发烧而生' });

    const deletion = await call('DELETE', '/api/v1/content/catalog/vendor/v-del', clientKey);
    expect(deletion.status).toBe(202);
    const deletionId = deletion.body.data.tracking_id as string;
    await waitFor(
      'the deletion done',
      async () =>
        (await call('GET', `/api/v1/content/tracking/${deletionId}`, clientKey)).body.data.status === 'done',
      30_000,
    );
    expect(await rows('v-del')).toEqual([]);
    // The cached French read was dropped with the entity.
    expect(await read()).toMatchObject({ status: 404, body: { error: 'ENTITY_NOT_FOUND' } });

    await report('v-del', 2, { name: '小米' });
    await waitFor('v-del back in 3 languages', async () => (await rows('v-del')).length === 3, 30_000);
    expect((await read()).body.data.fields).toEqual({ name: '[fr] 小米' });
  }, 90_000);

  it('a poison message lands in the dead letters while the partition keeps flowing', async () => {
    const producer = new KafkaProducer(kafka);
    await producer.connect();
    try {
      // Same key as the next real request, so both land on the same partition.
      await producer.send(topicName('translationRequested', prefix), [
        { key: 'vendor:v-2:name:en', value: Buffer.from('not avro at all'), headers: {} },
      ]);
    } finally {
      await producer.disconnect();
    }
    await report('v-2', 1, { name: '小米' });
    await waitFor(
      'v-2 translated behind the poison message',
      async () => (await rows('v-2')).length === 3,
      30_000,
    );
    await waitFor(
      'the poison message indexed',
      async () => {
        const list = await call('GET', '/api/admin/translate/dead-letters', adminKey);
        return (list.body.data.entries ?? []).some((e) => e.error_code === 'SCHEMA_HEADER_MISSING');
      },
      30_000,
    );
  }, 60_000);

  it('a translation that keeps failing is dead-lettered, and a replay after the fix produces the row', async () => {
    // The engine is down for every attempt the translator makes (2, see TRANSLATION_MAX_ATTEMPTS).
    libre.fail(
      { type: 'respond', status: 503, body: { error: 'down' } },
      { times: 1000, path: '/translate' },
    );
    const trackingId = await report('v-3', 1, { name: '联想' });
    let failedId: number | undefined;
    await waitFor(
      '3 dead letters for v-3',
      async () => {
        const list = await call('GET', '/api/admin/translate/dead-letters?limit=50', adminKey);
        const mine = (list.body.data.entries ?? []).filter((e) => e.error_code === 'TRANSLATION_FAILED');
        failedId = mine[0]?.id;
        return mine.length === 3;
      },
      40_000,
    );
    expect(failedId).toBeDefined();
    expect(await rows('v-3')).toEqual([]);
    // The report's tracking counts its dead letters: every request failed, so it is done.
    await waitFor(
      'the report done with 3 dead letters',
      async () =>
        (await call('GET', `/api/v1/content/tracking/${trackingId}`, clientKey)).body.data.status === 'done',
      20_000,
    );
    expect((await call('GET', `/api/v1/content/tracking/${trackingId}`, clientKey)).body.data).toMatchObject({
      requests: 3,
      translated: 0,
      dead_lettered: { TRANSLATION_FAILED: 3 },
    });

    libre.reset(); // the cause is fixed
    const replay = await call('POST', '/api/admin/translate/dead-letters/replay', adminKey, {
      ids: [failedId],
    });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ replayed: 1 });
    await waitFor('the replayed translation stored', async () => (await rows('v-3')).length === 1, 30_000);
    const gone = await call('GET', `/api/admin/translate/dead-letters/${failedId}`, adminKey);
    expect(gone.status).toBe(404);
  }, 90_000);

  // Each kill lands while work is provably in flight (counted at the kill: the killed process can no
  // longer move it), and after the restart every field of every entity is stored once, with its text.
  it('the worker killed with SIGKILL while changes arrive and its outbox holds unpublished rows loses nothing', async () => {
    const ids = entities('ka', 10);
    for (const id of ids.slice(0, 5)) await reportEntity(id);
    const worker = processes.get('worker')!;
    worker.child.kill('SIGKILL');
    await worker.exited;
    const storedAtKill = await storedCount('ka');
    for (const id of ids.slice(5)) await reportEntity(id);
    const unpublished = await unpublishedOutboxRows();
    console.log(
      `kill A: ${storedAtKill} of 30 rows stored at the kill, ${unpublished} outbox rows unpublished`,
    );
    expect(storedAtKill).toBeLessThan(30);
    expect(unpublished).toBeGreaterThanOrEqual(5);
    await healthy(start('worker'));
    await expectAllStored('ka', ids);
  }, 120_000);

  it('the translator killed with SIGKILL while requests wait in the engine loses nothing', async () => {
    const ids = entities('kb', 10);
    const engineBefore = libre.requests.length;
    libre.fail({ type: 'delay', ms: 2000 }, { times: 1000, path: '/translate' });
    for (const id of ids) await reportEntity(id);
    await waitFor('requests in the engine', () => libre.requests.length > engineBefore, 30_000, 20);
    const translator = processes.get('translator')!;
    translator.child.kill('SIGKILL');
    await translator.exited;
    const inEngine = libre.requests.length - engineBefore;
    const storedAtKill = await storedCount('kb');
    console.log(`kill B: ${inEngine} engine requests open, ${storedAtKill} of 60 rows stored at the kill`);
    expect(inEngine).toBeGreaterThan(0);
    expect(storedAtKill).toBeLessThan(60);
    libre.reset();
    await healthy(start('translator'));
    await expectAllStored('kb', ids);
  }, 120_000);

  it('the worker killed with SIGKILL while the projection is writing loses nothing', async () => {
    const ids = entities('kc', 10);
    // A slow engine spreads the 60 results out, so the projection writes them over seconds.
    libre.fail({ type: 'delay', ms: 300 }, { times: 1000, path: '/translate' });
    for (const id of ids) await reportEntity(id);
    await waitFor('the first rows projected', async () => (await storedCount('kc')) > 0, 60_000, 20);
    const worker = processes.get('worker')!;
    worker.child.kill('SIGKILL');
    await worker.exited;
    const storedAtKill = await storedCount('kc');
    console.log(`kill C: ${storedAtKill} of 60 rows stored at the kill`);
    expect(storedAtKill).toBeGreaterThan(0);
    expect(storedAtKill).toBeLessThan(60);
    libre.reset();
    await healthy(start('worker'));
    await expectAllStored('kc', ids);
  }, 120_000);

  it('a config change applies to the next ContentChanged without a restart', async () => {
    const bad = await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['xx'] });
    expect(bad.status).toBe(400);
    const ok = await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['es'] });
    expect(ok.status).toBe(200);
    await report('v-4', 1, { name: '腾讯' });
    await waitFor('v-4 in Spanish', async () => (await rows('v-4')).length === 1, 30_000);
    expect((await rows('v-4'))[0]?.target_lang).toBe('es');
  }, 60_000);
});
