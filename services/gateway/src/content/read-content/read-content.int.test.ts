import { hash } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { topicName, type TranslationRequested } from '@tp/contracts';
import { connectDatabase, OutboxMessage, SourceContent, TranslationConfig, type Orm } from '@tp/db';
import { contentReadCacheKey, requestedFields } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';
import { createClient } from 'redis';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { seedTranslation } from '../../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';
import { ContentStore } from './content.store.js';

// The query side through the real gateway: content seeded straight into source_contents and
// content_translations (as the planner and the projection would leave it), Redis for the read cache
// and the request throttle, the outbox for the translation requests.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
const redis = createClient({ url: process.env.REDIS_URL });
const codec = new EventCodec();
const topicPrefix = uniquePrefix('read-content');
const sha = (text: string) => hash('sha256', text, 'hex');

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: topicPrefix });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
  await redis.connect();
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
  sourceLang = 'zh-CN',
  sourceVersion = 1,
): Promise<void> {
  const em = orm.em.fork();
  for (const [field, text] of Object.entries(fields)) {
    em.create(SourceContent, {
      module: 'catalog',
      entityType: type,
      entityId: id,
      field,
      sourceLang,
      text,
      sourceHash: sha(text),
      sourceVersion,
    });
  }
  await em.flush();
}

/** A stored translation; `of` is the source text it was made from (an older one makes it outdated). */
async function translation(type: string, id: string, field: string, lang: string, text: string, of: string) {
  await seedTranslation(orm, { type, id, field, lang }, text, of);
}

async function read(path: string, language?: string, key = gateway.keys.client) {
  const res = await fetch(`${gateway.url}${path}`, {
    headers: {
      authorization: `Bearer ${key}`,
      'x-request-id': 'req-read-1',
      ...(language === undefined ? {} : { 'x-language': language }),
    },
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; error?: string; details?: unknown };
  const segments = path.split('?')[0]!.split('/').length;
  const documented = path.startsWith('/api/v1/vendors/')
    ? '/api/v1/vendors/{vendor_id}'
    : path.includes('?')
      ? '/api/v1/content/{type}'
      : segments === 7
        ? '/api/v1/content/{module}/{type}/{id}'
        : '/api/v1/content/{type}/{id}';
  contract.check('get', documented, res.status, body);
  return { status: res.status, body, contentLanguage: res.headers.get('content-language') };
}

const requests = async () =>
  (
    await orm.em.fork().find(OutboxMessage, { eventType: 'TranslationRequested' }, { orderBy: { id: 'asc' } })
  ).map((row) => ({
    key: row.messageKey,
    topic: row.topic,
    event: codec.decode(Buffer.from(row.payload), row.headers) as TranslationRequested,
  }));

const dropCache = (type: string, id: string) =>
  redis.del(contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, type, id));

beforeAll(async () => {
  // A vendor in Chinese: name translated into English; address's English translation was made
  // from an older text, so it is outdated.
  await source('vendor', 'v-1', { name: '华为', address: '深圳市龙岗区' }, 'zh-CN', 4);
  await translation('vendor', 'v-1', 'name', 'en', 'Huawei', '华为');
  await translation('vendor', 'v-1', 'address', 'en', 'Shenzhen (old)', '深圳');
  await translation('vendor', 'v-1', 'name', 'zh-TW', '華為', '华为');
  // A product in English, fully translated into Simplified Chinese.
  await source('product', 'p-1', { title: 'Phone', blurb: 'A phone.' }, 'en', 2);
  await translation('product', 'p-1', 'title', 'zh-CN', '手机', 'Phone');
  await translation('product', 'p-1', 'blurb', 'zh-CN', '一部手机。', 'A phone.');
  // Reads request translations only into configured target languages.
  await orm.em
    .fork()
    .nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages: ['en', 'ja', 'ko', 'fr'] });
});

beforeEach(async () => {
  for (const [type, id] of [
    ['vendor', 'v-1'],
    ['product', 'p-1'],
  ] as const) {
    await dropCache(type, id);
  }
});

describe('reading content', () => {
  it('serves the source text without x-language, and requests nothing', async () => {
    const res = await read('/api/v1/vendors/v-1');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      type: 'vendor',
      id: 'v-1',
      module: 'catalog',
      source_lang: 'zh-CN',
      source_version: 4,
      language: 'zh-CN',
      fields: { address: '深圳市龙岗区', name: '华为' },
      untranslated: [],
    });
    expect(res.contentLanguage).toBe('zh-CN');
    expect(await requests()).toEqual([]);
  });

  it('normalises zh-cn and merges a fully translated entity', async () => {
    const res = await read('/api/v1/content/product/p-1', 'zh-cn');
    expect(res.body.data).toMatchObject({
      type: 'product',
      source_lang: 'en',
      language: 'zh-CN',
      fields: { title: '手机', blurb: '一部手机。' },
      untranslated: [],
    });
    expect(res.contentLanguage).toBe('zh-CN');
  });

  it('falls back from en-US to en, keeps the source of fields without a current translation and lists them', async () => {
    const res = await read('/api/v1/content/vendor/v-1', 'en-US');
    expect(res.body.data).toMatchObject({
      language: 'en',
      fields: { name: 'Huawei', address: '深圳市龙岗区' },
      untranslated: ['address'],
    });
    expect(res.contentLanguage).toBe('en, zh-CN');
  });

  it('serves the same through /api/v1/vendors/{vendor_id} and /api/v1/content/vendor/{id}', async () => {
    const a = await read('/api/v1/vendors/v-1', 'zh-TW');
    await dropCache('vendor', 'v-1');
    const b = await read('/api/v1/content/vendor/v-1', 'zh_hant_tw');
    expect(a.body).toEqual(b.body);
    expect(a.body.data).toMatchObject({
      language: 'zh-TW',
      fields: { name: '華為' },
      untranslated: ['address'],
    });
  });

  it('serves the same on the write path /api/v1/content/{module}/{type}/{id}, with the module checked', async () => {
    const plain = await read('/api/v1/content/vendor/v-1', 'en');
    await dropCache('vendor', 'v-1');
    const withModule = await read('/api/v1/content/catalog/vendor/v-1', 'en');
    expect(withModule.status).toBe(200);
    expect(withModule.body).toEqual(plain.body);
    expect(withModule.contentLanguage).toBe(plain.contentLanguage);
    // Another module's path: 404, exactly as an entity that does not exist there.
    const other = await read('/api/v1/content/billing/vendor/v-1', 'en');
    const absent = await read('/api/v1/content/billing/vendor/nope', 'en');
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({
      error: 'ENTITY_NOT_FOUND',
      details: { module: 'billing', type: 'vendor', id: 'v-1' },
    });
    expect(JSON.stringify(other.body).replaceAll('v-1', 'nope')).toBe(JSON.stringify(absent.body));
  });

  it('requests the translation of untranslated fields once, however often they are read', async () => {
    const before = (await requests()).length;
    await read('/api/v1/content/product/p-1', 'ja');
    const after = await requests();
    const made = after.slice(before);
    // One request for the entity in that language, with both fields.
    expect(made.map((r) => r.key)).toEqual(['product:p-1:ja']);
    const [request] = made;
    expect(
      request &&
        requestedFields(request.event.data)
          .map((f) => f.field)
          .sort(),
    ).toEqual(['blurb', 'title']);
    const title = request && requestedFields(request.event.data).find((f) => f.field === 'title');
    expect(title).toEqual({
      field: 'title',
      text: 'Phone',
      sourceHash: sha('Phone'),
      sourceVersion: 2,
      format: 'text',
    });
    expect(request).toMatchObject({
      topic: topicName('translationRequested', topicPrefix),
      event: {
        eventType: 'TranslationRequested',
        correlationId: 'req-read-1',
        causationId: null,
        data: { entityType: 'product', entityId: 'p-1', sourceLang: 'en', targetLang: 'ja' },
      },
    });

    // Again from Postgres (cache dropped), and from the cache: nothing new.
    await dropCache('product', 'p-1');
    await read('/api/v1/content/product/p-1', 'ja');
    await read('/api/v1/content/product/p-1', 'ja');
    expect(await requests()).toHaveLength(after.length);
  });

  it('requests nothing in a language that is not a configured target language', async () => {
    const before = (await requests()).length;
    const res = await read('/api/v1/content/product/p-1', 'de');
    expect(res.body.data).toMatchObject({ untranslated: ['blurb', 'title'] });
    expect(await requests()).toHaveLength(before);
    // Later traffic still flows: a configured language is still requested.
    await read('/api/v1/content/product/p-1', 'ko');
    expect(
      (await requests())
        .slice(before)
        .map((r) => r.key)
        .sort(),
    ).toEqual(['product:p-1:ko']);
  });

  it('requests nothing when translation is disabled', async () => {
    await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { enabled: false });
    try {
      const before = (await requests()).length;
      const res = await read('/api/v1/content/product/p-1', 'fr');
      expect(res.body.data).toMatchObject({ untranslated: ['blurb', 'title'] });
      expect(await requests()).toHaveLength(before);
    } finally {
      await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { enabled: true });
    }
  });

  it('fills the read cache, answers from it, and reads Postgres again once the key is gone', async () => {
    await source('vendor', 'v-cache', { name: '小米' });
    const first = await read('/api/v1/content/vendor/v-cache', 'en');
    expect(first.body.data).toMatchObject({ fields: { name: '小米' }, untranslated: ['name'] });
    const key = contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, 'vendor', 'v-cache');
    expect(await redis.hKeys(key)).toEqual(['en']);
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(gateway.config.CONTENT_READ_CACHE_TTL_S);

    // The projection lands a translation but (here) nobody drops the key: the cached view is served.
    await translation('vendor', 'v-cache', 'name', 'en', 'Xiaomi', '小米');
    expect((await read('/api/v1/content/vendor/v-cache', 'en')).body.data).toMatchObject({
      fields: { name: '小米' },
    });

    // Dropped, as the projection does: the next read is fresh, and cached again with its headers.
    await redis.del(key);
    const fresh = await read('/api/v1/content/vendor/v-cache', 'en');
    expect(fresh.body.data).toMatchObject({ fields: { name: 'Xiaomi' }, untranslated: [] });
    expect(fresh.contentLanguage).toBe('en');
    const cached = await read('/api/v1/content/vendor/v-cache', 'en');
    expect(cached.body).toEqual(fresh.body);
    expect(cached.contentLanguage).toBe('en');
    // Each language has its own entry in the entity's hash.
    await read('/api/v1/content/vendor/v-cache');
    expect((await redis.hKeys(key)).sort()).toEqual(['en', 'source']);
  });

  it('reads many entities at once, in the order asked, listing the ids it does not know', async () => {
    await source('vendor', 'v-2', { name: '联想' });
    const res = await read('/api/v1/content/vendor?ids=v-2,nope,v-1,v-2', 'en');
    expect(res.status).toBe(200);
    const data = res.body.data as {
      type: string;
      items: { id: string; fields: object }[];
      missing: string[];
    };
    expect(data.type).toBe('vendor');
    expect(data.items.map((i) => i.id)).toEqual(['v-2', 'v-1']);
    expect(data.items[1]?.fields).toEqual({ name: 'Huawei', address: '深圳市龙岗区' });
    expect(data.missing).toEqual(['nope']);
    expect(res.contentLanguage).toBe('en, zh-CN');
  });

  it('answers 404 ENTITY_NOT_FOUND for an entity without content', async () => {
    for (const path of [
      '/api/v1/content/vendor/unknown',
      '/api/v1/vendors/unknown',
      '/api/v1/content/product/v-1',
    ]) {
      const res = await read(path, 'en');
      expect({ path, status: res.status, error: res.body.error }).toEqual({
        path,
        status: 404,
        error: 'ENTITY_NOT_FOUND',
      });
    }
  });

  it('answers 400 VALIDATION_FAILED for a malformed x-language and UNSUPPORTED_LANGUAGE for an unknown one', async () => {
    const malformed = await read('/api/v1/vendors/v-1', 'en US!');
    expect(malformed).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
    expect(malformed.body.details).toEqual({
      issues: [expect.objectContaining({ path: 'headers.x-language' })],
    });
    const unknown = await read('/api/v1/vendors/v-1', 'qq-QQ');
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: 'UNSUPPORTED_LANGUAGE', details: { field: 'x-language', value: 'qq-QQ' } },
    });
  });

  it('answers 400 for a list of no ids, too many ids, or an empty id', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `x${i}`).join(',');
    for (const query of ['', `?ids=${many}`, '?ids=a,,b', '?ids=']) {
      const res = await fetch(`${gateway.url}/api/v1/content/vendor${query}`, {
        headers: { authorization: `Bearer ${gateway.keys.client}` },
      });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });

  it('takes an empty x-language for none', async () => {
    const res = await read('/api/v1/vendors/v-1', '');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ language: 'zh-CN', fields: { name: '华为' } });
  });

  it('answers 401 without a key', async () => {
    const res = await fetch(`${gateway.url}/api/v1/vendors/v-1`);
    expect(res.status).toBe(401);
  });

  it('reads a hundred entities with one query', async () => {
    const queries: string[] = [];
    const counted = await connectDatabase(
      { url: gateway.config.DATABASE_URL, poolMax: 1 },
      { debug: ['query'], logger: (message: string) => queries.push(message) },
    );
    try {
      const ids = Array.from({ length: 100 }, (_, i) => `v-${i}`);
      queries.length = 0;
      const found = await new ContentStore(counted).fields('vendor', ids, ['en', 'ja']);
      expect([...found.keys()].sort()).toEqual(['v-1', 'v-2']);
      expect(queries).toHaveLength(1);
    } finally {
      await counted.close(true);
    }
  });
});

describe('reading content while Redis is down', () => {
  let degraded: TestGateway;
  let db: Orm;

  beforeAll(async () => {
    degraded = await startTestGateway({
      KAFKA_TOPIC_PREFIX: topicPrefix,
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
    db = await connectDatabase({ url: degraded.config.DATABASE_URL, poolMax: 1 });
    const em = db.em.fork();
    em.create(SourceContent, {
      module: 'catalog',
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      text: '华为',
      sourceHash: sha('华为'),
      sourceVersion: 1,
    });
    await em.flush();
  });

  afterAll(async () => {
    await db?.close(true);
    await degraded?.close();
  });

  it('reads from Postgres and requests nothing rather than flood the queue', async () => {
    for (let i = 0; i < 2; i += 1) {
      const res = await fetch(`${degraded.url}/api/v1/vendors/v-1`, {
        headers: { authorization: `Bearer ${degraded.keys.client}`, 'x-language': 'en' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ data: { fields: { name: '华为' }, untranslated: ['name'] } });
    }
    expect(await db.em.fork().count(OutboxMessage, {})).toBe(0);
  });
});
