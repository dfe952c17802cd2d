// The content pipeline end to end, as processes: gateway (command, query, admin), worker (relay,
// planner, projection, dead-letter index) and translator (engine consumers), on real Kafka, Postgres
// and Redis. The translator's only engine is the LibreTranslate double, which answers
// `[<target>] <text>` for text outside its phrasebook, so every stored translation shows its language.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { KafkaProducer } from '@tp/kafka';
import pg from 'pg';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli, pipelineEnv } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('pipe');
const kafka = testKafka('pipeline-e2e');
let db: TestDatabase;
let sql: pg.Pool;
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
  await waitFor(
    `${proc.url} /health`,
    async () => (await fetch(`${proc.url}/health`).catch(() => null))?.ok === true,
  );
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
  const result = await sql.query<Row>(
    `select field, target_lang, translated_text, source_version, updated_at from content_translations
     where entity_type = 'vendor' and entity_id = $1 order by field, target_lang`,
    [entityId],
  );
  return result.rows;
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
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
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
}, 90_000);

afterAll(async () => {
  for (const proc of processes.values()) proc.child.kill('SIGKILL');
  await libre?.close();
  await sql?.end();
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

  it('changing one field re-translates only that field', async () => {
    await waitFor('v-1 translated', async () => (await rows('v-1')).length === 6, 30_000);
    const before = await rows('v-1');
    await report('v-1', 2, { name: '华为技术', slogan: '一个新的口号' });
    await waitFor(
      'slogan at version 2 in 3 languages',
      async () =>
        (await rows('v-1')).filter((r) => r.field === 'slogan' && r.source_version === '2').length === 3,
      30_000,
    );
    const after = await rows('v-1');
    const names = (list: Row[]) => list.filter((r) => r.field === 'name');
    // The unchanged field was not translated again: same rows, same version, same update time.
    expect(names(after)).toEqual(names(before));
    expect(after.find((r) => r.field === 'slogan' && r.target_lang === 'de')?.translated_text).toBe(
      '[de] 一个新的口号',
    );
    const merged = await call('GET', '/api/v1/vendors/v-1', clientKey, undefined, { 'x-language': 'de' });
    expect(merged.body.data.fields?.slogan).toBe('[de] 一个新的口号');
  }, 60_000);

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

  it('the worker killed with SIGKILL mid-stream and restarted loses nothing', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `k-${i}`);
    for (const id of ids) await report(id, 1, { name: `公司${id}`, slogan: `口号${id}` });
    const worker = processes.get('worker')!;
    worker.child.kill('SIGKILL');
    await worker.exited;
    await healthy(start('worker'));
    await waitFor(
      'every field of every entity in 3 languages',
      async () => {
        const result = await sql.query<{ n: string }>(
          `select count(*) as n from content_translations where entity_type = 'vendor' and entity_id like 'k-%'`,
        );
        return Number(result.rows[0]?.n) === ids.length * 2 * 3;
      },
      60_000,
      200,
    );
  }, 90_000);

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
