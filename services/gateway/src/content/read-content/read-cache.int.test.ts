import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { contentReadCacheKey } from '@tp/pipeline';
import { createClient } from 'redis';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { seedSource, seedTranslation } from '../../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';

// Single reads answered from the read cache through the real gateway: what a cached view changes
// (nothing an uncached read would not answer), and that the cache never answers a view Redis no
// longer holds.
let gateway: TestGateway;
let orm: Orm;
const redis = createClient({ url: process.env.REDIS_URL });
const PER_KEY_LIMIT = 30;

beforeAll(async () => {
  gateway = await startTestGateway({
    KAFKA_TOPIC_PREFIX: uniquePrefix('read-cache'),
    API_KEY_CACHE_MS: '600000',
    RATE_LIMIT_PER_KEY: String(PER_KEY_LIMIT),
    // A window that does not roll over while the limit test runs.
    RATE_LIMIT_WINDOW_S: '3600',
  });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  await redis.connect();
  await seedSource(orm, { type: 'vendor', id: 'v-1' }, { name: '华为', address: '深圳市龙岗区' });
  await seedTranslation(orm, { type: 'vendor', id: 'v-1', field: 'name', lang: 'en' }, 'Huawei', '华为');
  await seedTranslation(orm, { type: 'vendor', id: 'v-1', field: 'name', lang: 'zh-TW' }, '華為', '华为');
  await seedSource(orm, { module: 'shop', type: 'product', id: 'p-1' }, { title: '手机' });
  await seedTranslation(orm, { type: 'product', id: 'p-1', field: 'title', lang: 'en' }, 'Phone', '手机');
});

afterAll(async () => {
  const keys = await redis.keys(`${gateway.config.REDIS_KEY_PREFIX}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
  await orm?.close(true);
  await gateway?.close();
});

/** A new client key made through the admin API (so revoking it reaches the gateway's memory). */
async function newKey(body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await fetch(`${gateway.url}/api/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'client', ...body }),
  });
  return ((await res.json()) as { data: { id: string; key: string } }).data;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

async function get(path: string, key: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${gateway.url}${path}`, {
    headers: { authorization: `Bearer ${key}`, 'x-request-id': 'read-req-1', ...headers },
  });
  const { date: _date, ...rest } = Object.fromEntries(res.headers);
  return { status: res.status, headers: rest, body: await res.text() };
}

/** The answer without what differs between two requests by design (the limit's count and reset). */
const comparable = ({
  headers: { 'ratelimit-remaining': _remaining, 'ratelimit-reset': _reset, 'x-request-id': _id, ...headers },
  ...answer
}: Answer) => ({ ...answer, headers });

/** How many HGETs of `key` reached Redis while `action` ran (Redis's MONITOR, up to a marker). */
async function hGetsDuring(key: string, action: () => Promise<unknown>): Promise<number> {
  const monitor = redis.duplicate();
  await monitor.connect();
  const marker = `${gateway.config.REDIS_KEY_PREFIX}marker-${Math.random()}`;
  let hGets = 0;
  let markerSeen: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (markerSeen = resolve));
  await monitor.monitor((line) => {
    const text = String(line);
    if (text.includes(marker)) markerSeen();
    else if (/"hget"/i.test(text) && text.includes(`"${key}"`)) hGets += 1;
  });
  try {
    await action();
    await redis.get(marker);
    await seen;
    return hGets;
  } finally {
    monitor.destroy();
  }
}

describe('single reads from the read cache', () => {
  it.each([
    ['/api/v1/vendors/v-1', { 'x-language': 'en' }],
    ['/api/v1/vendors/v-1', { 'x-language': 'en-US' }],
    ['/api/v1/content/vendor/v-1', { 'x-language': 'zh_hant_tw' }],
    ['/api/v1/content/vendor/v-1', {}],
    ['/api/v1/content/product/p-1', { 'x-language': '' }],
    ['/api/v1/content/product/p-1', { 'x-language': 'EN' }],
  ])('answers a cache hit of %s %j as it answered the read that filled the cache', async (path, headers) => {
    const { key } = await newKey();
    const first = await get(path, key, headers);
    expect(first.status).toBe(200);
    const hit = await get(path, key, headers);
    expect(comparable(hit)).toEqual(comparable(first));
    expect(hit.headers['x-request-id']).toBe('read-req-1');
  });

  it('answers 401 API_KEY_REVOKED once a remembered key is revoked', async () => {
    const { id, key } = await newKey();
    await get('/api/v1/vendors/v-1', key);
    expect((await get('/api/v1/vendors/v-1', key)).status).toBe(200);
    await fetch(`${gateway.url}/api/admin/keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${gateway.keys.admin}` },
    });
    const res = await get('/api/v1/vendors/v-1', key);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'API_KEY_REVOKED' });
  });

  it("answers 404 for a cached entity outside a scoped key's modules", async () => {
    const { key } = await newKey({ modules: ['shop'] });
    const { key: reader } = await newKey();
    await get('/api/v1/vendors/v-1', reader, { 'x-language': 'en' }); // cached
    expect((await get('/api/v1/content/product/p-1', key)).status).toBe(200);
    const res = await get('/api/v1/vendors/v-1', key, { 'x-language': 'en' });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'ENTITY_NOT_FOUND' });
  });

  it("answers 429 RATE_LIMITED past the key's limit, counting each read once", async () => {
    const { key } = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i <= PER_KEY_LIMIT; i += 1) statuses.push((await get('/api/v1/vendors/v-1', key)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_KEY_LIMIT);
    const refused = await get('/api/v1/vendors/v-1', key);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'RATE_LIMITED', request_id: 'read-req-1' });
  });

  it('spends a daily request budget on cache hits too', async () => {
    const { key } = await newKey({ requests_per_day: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get('/api/v1/vendors/v-1', key)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('answers a view changed in Redis from its new text, never a stale one', async () => {
    const { key } = await newKey();
    const path = '/api/v1/vendors/v-1';
    await get(path, key, { 'x-language': 'en' });
    const cacheKey = contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, 'vendor', 'v-1');
    const cached = JSON.parse((await redis.hGet(cacheKey, 'en')) as string) as {
      view: { fields: Record<string, string> };
    };
    cached.view.fields.name = 'Huawei (edited)';
    await redis.hSet(cacheKey, 'en', JSON.stringify(cached));
    const res = await get(path, key, { 'x-language': 'en' });
    expect(JSON.parse(res.body)).toMatchObject({ data: { fields: { name: 'Huawei (edited)' } } });
  });

  it("answers a repeated read from the gateway's memory, and reads Redis again once the view changes there", async () => {
    const { key } = await newKey();
    const path = '/api/v1/vendors/v-1';
    const headers = { 'x-language': 'zh-TW' };
    const cacheKey = contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, 'vendor', 'v-1');
    await get(path, key, headers); // a miss: fills the read cache
    await get(path, key, headers); // read from Redis, and kept in memory
    expect(await hGetsDuring(cacheKey, () => get(path, key, headers))).toBe(0);
    const cached = JSON.parse((await redis.hGet(cacheKey, 'zh-TW')) as string) as {
      view: { fields: Record<string, string> };
    };
    cached.view.fields.name = '華為 (changed)';
    await redis.hSet(cacheKey, 'zh-TW', JSON.stringify(cached));
    let body = '';
    expect(await hGetsDuring(cacheKey, async () => ({ body } = await get(path, key, headers)))).toBe(1);
    expect(JSON.parse(body)).toMatchObject({ data: { fields: { name: '華為 (changed)' } } });
  });

  it.each([
    ['deleted', (cacheKey: string) => redis.del(cacheKey)],
    [
      'expired',
      async (cacheKey: string) => {
        await redis.pExpire(cacheKey, 200);
        await new Promise((resolve) => setTimeout(resolve, 400));
      },
    ],
  ])('reads Postgres again once the cached view is %s', async (_label, change) => {
    const { key } = await newKey();
    const path = '/api/v1/content/product/p-1';
    const cacheKey = contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, 'product', 'p-1');
    await get(path, key, { 'x-language': 'en' });
    // An edit only Redis holds: answered while the cached view lives.
    const cached = JSON.parse((await redis.hGet(cacheKey, 'en')) as string) as {
      view: { fields: Record<string, string> };
    };
    cached.view.fields.title = 'Phone (cached)';
    await redis.hSet(cacheKey, 'en', JSON.stringify(cached));
    for (let i = 0; i < 2; i += 1) {
      const res = await get(path, key, { 'x-language': 'en' });
      expect(JSON.parse(res.body)).toMatchObject({ data: { fields: { title: 'Phone (cached)' } } });
    }
    await change(cacheKey);
    const res = await get(path, key, { 'x-language': 'en' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ data: { fields: { title: 'Phone' } } });
  });
});
