import { hash } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentTranslation, SourceContent, type Orm } from '@tp/db';
import { createClient } from 'redis';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';

// PUT .../translations/{lang} through the real gateway, Postgres and Redis: source content seeded as
// the planner leaves it, a machine translation as the projection leaves it.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
let clientKeyId: string;
let scopedKey: string;
const redis = createClient({ url: process.env.REDIS_URL });
const sha = (text: string) => hash('sha256', text, 'hex');
const PUT_PATH = '/api/v1/content/{module}/{type}/{id}/translations/{lang}';

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: uniquePrefix('edit-translation') });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
  await redis.connect();
  clientKeyId = (await gateway.store.list()).find((k) => k.name === 'test client')?.id ?? '';
  scopedKey = (await gateway.store.create('client', 'scoped', { modules: ['billing'] })).key;
  await source('vendor', 'v-edit', { name: '华为', address: '深圳' }, 3);
  await source('shop', 's-1', { name: '小店' }, 1, 'other');
  await machineRow({
    entityType: 'vendor',
    entityId: 'v-edit',
    field: 'address',
    targetLang: 'en',
    sourceLang: 'zh-CN',
    translatedText: 'Shenzh',
    sourceHash: sha('深圳'),
    sourceVersion: 3,
    engine: 'mymemory',
    truncated: true,
    lastEventId: '00000000-0000-4000-8000-000000000001',
  });
});

afterAll(async () => {
  const keys = await redis.keys(`${gateway.config.REDIS_KEY_PREFIX}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
  await orm?.close(true);
  await gateway?.close();
});

async function source(
  type: string,
  id: string,
  fields: Record<string, string>,
  version: number,
  module = 'catalog',
) {
  const em = orm.em.fork();
  for (const [field, text] of Object.entries(fields)) {
    em.create(SourceContent, {
      module,
      entityType: type,
      entityId: id,
      field,
      sourceLang: 'zh-CN',
      text,
      sourceHash: sha(text),
      sourceVersion: version,
    });
  }
  await em.flush();
}

/** A machine translation as the projection leaves it. */
async function machineRow(
  row: Omit<
    ContentTranslation,
    'id' | 'createdAt' | 'updatedAt' | 'origin' | 'writtenBy' | 'stale' | 'requestedAt' | 'fallback'
  >,
) {
  const em = orm.em.fork();
  em.create(ContentTranslation, row);
  await em.flush();
}

interface Reply {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown>;
    error?: string;
    details?: { issues?: { path: string; message: string }[] };
  };
}

async function put(path: string, body: unknown, key: string | null = gateway.keys.client): Promise<Reply> {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  contract.check('put', PUT_PATH, reply.status, reply.body);
  return reply;
}

async function read(path: string, language: string): Promise<Reply> {
  const res = await fetch(`${gateway.url}${path}`, {
    headers: { authorization: `Bearer ${gateway.keys.client}`, 'x-language': language },
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  contract.check('get', '/api/v1/content/{type}/{id}', reply.status, reply.body);
  return reply;
}

const row = (field: string, lang: string) =>
  orm.em
    .fork()
    .findOne(ContentTranslation, { entityType: 'vendor', entityId: 'v-edit', field, targetLang: lang });

describe('PUT /api/v1/content/{module}/{type}/{id}/translations/{lang}', () => {
  it('stores human translations for the current source version and serves them, with meta only when asked', async () => {
    // Read first, so that the read cache holds the machine translation: the edit must drop it.
    expect((await read('/api/v1/content/vendor/v-edit', 'en')).body.data?.fields).toEqual({
      address: 'Shenzh',
      name: '华为',
    });
    const reply = await put('/api/v1/content/catalog/vendor/v-edit/translations/EN', {
      fields: { address: 'Shenzhen' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      language: 'en',
      source_version: 3,
      fields: ['address'],
      origin: 'human',
    });
    expect(await row('address', 'en')).toMatchObject({
      translatedText: 'Shenzhen',
      origin: 'human',
      writtenBy: clientKeyId,
      sourceVersion: 3,
      sourceHash: sha('深圳'),
      stale: false,
      truncated: false,
    });
    const plain = await read('/api/v1/content/vendor/v-edit', 'en');
    expect(plain.body.data?.fields).toEqual({ address: 'Shenzhen', name: '华为' });
    expect(plain.body.data).not.toHaveProperty('meta');
    const withMeta = await read('/api/v1/content/vendor/v-edit?meta=true', 'en');
    expect(withMeta.body.data?.meta).toEqual({ address: { language: 'en', origin: 'human', engine: null } });
  });

  it('shows a machine translation’s engine and truncation in the meta', async () => {
    await put('/api/v1/content/catalog/vendor/v-edit/translations/ja', { fields: { name: 'ファーウェイ' } });
    await machineRow({
      entityType: 'vendor',
      entityId: 'v-edit',
      field: 'name',
      targetLang: 'de',
      sourceLang: 'zh-CN',
      translatedText: 'Hua',
      sourceHash: sha('华为'),
      sourceVersion: 3,
      engine: 'mymemory',
      truncated: true,
      lastEventId: '00000000-0000-4000-8000-000000000002',
    });
    const reply = await read('/api/v1/content/vendor/v-edit?meta=true', 'de');
    expect(reply.body.data?.meta).toEqual({
      name: { language: 'de', origin: 'machine', engine: 'mymemory', truncated: true },
    });
  });

  it('refuses bad bodies, unknown fields and the source language with 400, storing nothing', async () => {
    const path = '/api/v1/content/catalog/vendor/v-edit/translations/fr';
    expect((await put(path, { fields: {} })).body.error).toBe('VALIDATION_FAILED');
    expect((await put(path, { fields: { name: '' } })).body.error).toBe('VALIDATION_FAILED');
    expect((await put(path, { fields: { name: 'x' }, extra: 1 })).body.error).toBe('VALIDATION_FAILED');
    const unknown = await put(path, { fields: { name: 'Huawei', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details?.issues?.map((i) => i.path)).toEqual(['body.fields.colour']);
    // JSON.parse keeps __proto__ as a key (an object literal would not): named, not dropped in silence.
    const proto = await put(path, { fields: JSON.parse('{"name": "Huawei", "__proto__": "x"}') as object });
    expect(proto.status).toBe(400);
    expect(proto.body.details?.issues?.map((i) => i.path)).toEqual(['body.fields.__proto__']);
    const sourceLang = await put('/api/v1/content/catalog/vendor/v-edit/translations/zh-cn', {
      fields: { name: '华为' },
    });
    expect(sourceLang.status).toBe(400);
    expect(sourceLang.body.details?.issues?.map((i) => i.path)).toEqual(['body.fields.name']);
    const klingon = await put('/api/v1/content/catalog/vendor/v-edit/translations/tlh-XX', {
      fields: { name: 'x' },
    });
    expect(klingon).toMatchObject({ status: 400, body: { error: 'UNSUPPORTED_LANGUAGE' } });
    expect(await row('name', 'fr')).toBeNull();
  });

  it('answers 404 ENTITY_NOT_FOUND for an unknown entity and for one of another module', async () => {
    const unknown = await put('/api/v1/content/catalog/vendor/v-none/translations/en', {
      fields: { name: 'x' },
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'ENTITY_NOT_FOUND' } });
    const foreign = await put('/api/v1/content/catalog/shop/s-1/translations/en', { fields: { name: 'x' } });
    expect(foreign).toMatchObject({ status: 404, body: { error: 'ENTITY_NOT_FOUND' } });
  });

  it('needs a key, and a scoped key only writes its own modules', async () => {
    const body = { fields: { name: 'Huawei' } };
    const path = '/api/v1/content/catalog/vendor/v-edit/translations/en';
    expect((await put(path, body, null)).status).toBe(401);
    expect((await put(path, body, gateway.keys.revoked)).status).toBe(401);
    expect(await put(path, body, scopedKey)).toMatchObject({
      status: 403,
      body: { error: 'MODULE_NOT_ALLOWED' },
    });
    expect(await row('name', 'en')).toBeNull();
  });
});
