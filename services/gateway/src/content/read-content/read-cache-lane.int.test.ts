import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { contentReadCacheKey } from '@tp/pipeline';
import { createClient } from 'redis';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { seedSource, seedTranslation } from '../../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';

// The read-cache lane (read-cache-lane.ts) through the real gateway: the same requests answered by
// the lane (a plain GET of a cached view with a remembered key) and by the Express route (the same
// GET with `?meta=false`, or with `if-none-match`, which the lane never takes), compared. The
// gateway's own counter of what the lane answered shows which path answered.
let gateway: TestGateway;
let orm: Orm;
const redis = createClient({ url: process.env.REDIS_URL });
const PER_KEY_LIMIT = 30;

beforeAll(async () => {
  gateway = await startTestGateway({
    KAFKA_TOPIC_PREFIX: uniquePrefix('read-lane'),
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
    headers: { authorization: `Bearer ${key}`, 'x-request-id': 'lane-req-1', ...headers },
  });
  const { date: _date, ...rest } = Object.fromEntries(res.headers);
  return { status: res.status, headers: rest, body: await res.text() };
}

async function metric(pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}
const laneAnswered = () =>
  metric(/^gateway_read_lane_requests_total\{[^}]*outcome="answered"[^}]*\} (\S+)$/m);
const laneHandedOver = () =>
  metric(/^gateway_read_lane_requests_total\{[^}]*outcome="handed_over"[^}]*\} (\S+)$/m);

/**
 * The answer without what differs between two requests by design: the rate limit's remaining count
 * and seconds to reset (each request is counted once: the 429 test below shows it).
 */
const comparable = ({
  headers: { 'ratelimit-remaining': remaining, 'ratelimit-reset': reset, ...headers },
  ...answer
}: Answer) => ({ ...answer, headers, limitHeaders: [remaining, reset].map((v) => /^\d+$/.test(v ?? '')) });

describe('the read-cache lane in front of Express', () => {
  it.each([
    ['/api/v1/vendors/v-1', { 'x-language': 'en' }],
    ['/api/v1/vendors/v-1', { 'x-language': 'en-US' }],
    ['/api/v1/content/vendor/v-1', { 'x-language': 'zh_hant_tw' }],
    ['/api/v1/content/vendor/v-1', {}],
    ['/api/v1/content/product/p-1', { 'x-language': '' }],
    ['/api/v1/content/product/p-1', { 'x-language': 'EN' }],
  ])('answers a cache hit of %s %j as the Express route does', async (path, headers) => {
    const { key } = await newKey();
    // The first read looks the key up and fills the read cache, both through Express.
    const first = await get(path, key, headers);
    expect(first.status).toBe(200);
    const before = await laneAnswered();
    const lane = await get(path, key, headers);
    expect(await laneAnswered()).toBe(before + 1);
    const byQuery = await get(`${path}?meta=false`, key, headers);
    const byCondition = await get(path, key, { ...headers, 'if-none-match': '"x"' });
    expect(await laneAnswered()).toBe(before + 1);
    expect(comparable(lane)).toEqual(comparable(byQuery));
    expect(comparable(lane)).toEqual(comparable(byCondition));
    expect(comparable(lane)).toEqual(comparable(first));
    expect(lane.headers['x-request-id']).toBe('lane-req-1');
  });

  it('counts its answers in the request metrics under the route', async () => {
    const { key } = await newKey();
    const count = () =>
      metric(
        /^http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/vendors\/:vendor_id"[^}]*status="200"[^}]*\} (\S+)$/m,
      );
    await get('/api/v1/vendors/v-1', key, { 'x-language': 'en' });
    const [counted, answered] = [await count(), await laneAnswered()];
    await get('/api/v1/vendors/v-1', key, { 'x-language': 'en' });
    expect(await laneAnswered()).toBe(answered + 1);
    expect(await count()).toBe(counted + 1);
  });

  it.each([
    ['no key', undefined, '/api/v1/vendors/v-1', {}, 401, 'API_KEY_MISSING'],
    [
      'a malformed x-language',
      'client',
      '/api/v1/vendors/v-1',
      { 'x-language': 'e' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'an unsupported x-language',
      'client',
      '/api/v1/vendors/v-1',
      { 'x-language': 'tlh' },
      400,
      'UNSUPPORTED_LANGUAGE',
    ],
    ['an unknown entity', 'client', '/api/v1/vendors/nobody', {}, 404, 'ENTITY_NOT_FOUND'],
    ['the tracking type', 'client', '/api/v1/content/tracking/v-1', {}, 400, 'VALIDATION_FAILED'],
  ])('leaves %s to Express', async (_label, keyName, path, headers, status, error) => {
    const { key } = await newKey();
    await get('/api/v1/vendors/v-1', key); // remembered from here on
    const before = await laneAnswered();
    const res = await fetch(`${gateway.url}${path}`, {
      headers: { ...(keyName ? { authorization: `Bearer ${key}` } : {}), ...headers },
    });
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ error, request_id: expect.any(String) });
    expect(await laneAnswered()).toBe(before);
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

  it("hands a cached entity outside a scoped key's modules to Express, which answers 404", async () => {
    const { key } = await newKey({ modules: ['shop'] });
    const { key: reader } = await newKey();
    await get('/api/v1/vendors/v-1', reader, { 'x-language': 'en' }); // cached
    expect((await get('/api/v1/content/product/p-1', key)).status).toBe(200);
    const handedOver = await laneHandedOver();
    const res = await get('/api/v1/vendors/v-1', key, { 'x-language': 'en' });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'ENTITY_NOT_FOUND' });
    expect(await laneHandedOver()).toBe(handedOver + 1);
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
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'RATE_LIMITED', request_id: 'lane-req-1' });
  });

  it('leaves keys with a daily request budget to Express, which spends it', async () => {
    const { key } = await newKey({ requests_per_day: 2 });
    const before = await laneAnswered();
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get('/api/v1/vendors/v-1', key)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await laneAnswered()).toBe(before);
  });

  it('answers a view changed in Redis from its new text, never a stale ready answer', async () => {
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

  it.each([
    ['deleted', (cacheKey: string) => redis.del(cacheKey)],
    [
      'expired',
      async (cacheKey: string) => {
        await redis.pExpire(cacheKey, 200);
        await new Promise((resolve) => setTimeout(resolve, 400));
      },
    ],
  ])('hands a read it answered from memory to Express once the cached view is %s', async (_label, change) => {
    const { key } = await newKey();
    const path = '/api/v1/content/product/p-1';
    await get(path, key, { 'x-language': 'en' });
    const before = await laneAnswered();
    // Answered by the lane twice: read from Redis, then from what tracking says is unchanged.
    for (let i = 0; i < 2; i += 1) expect((await get(path, key, { 'x-language': 'en' })).status).toBe(200);
    expect(await laneAnswered()).toBe(before + 2);
    await change(contentReadCacheKey(gateway.config.REDIS_KEY_PREFIX, 'product', 'p-1'));
    const handedOver = await laneHandedOver();
    const res = await get(path, key, { 'x-language': 'en' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ data: { fields: { title: 'Phone' } } });
    expect(await laneHandedOver()).toBe(handedOver + 1);
    expect(await laneAnswered()).toBe(before + 2);
  });
});
