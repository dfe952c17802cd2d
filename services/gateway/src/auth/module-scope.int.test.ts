import { hash } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, OutboxMessage, SourceContent, type Orm } from '@tp/db';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { OpenApiContract } from '../../test/openapi-contract.js';

// Keys scoped to modules (issue 16) through the real gateway: keys made by the admin API, content
// seeded into source_contents of two modules, the outbox as the trace of what a request asked for.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
/** A key for module `shop` only, and one for `shop` and `cms`. */
let shopKey: string;
let shopCmsKey: string;

async function call(method: string, documented: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'x-language': 'en',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as {
    data?: Record<string, unknown>;
    error?: string;
    details?: unknown;
    request_id?: string;
  };
  contract.check(method, documented, res.status, json);
  return { status: res.status, body: json };
}

const createKey = (body: unknown) =>
  call('post', '/api/admin/keys', '/api/admin/keys', gateway.keys.admin, body);

async function source(module: string, type: string, id: string): Promise<void> {
  const em = orm.em.fork();
  em.create(SourceContent, {
    module,
    entityType: type,
    entityId: id,
    field: 'name',
    sourceLang: 'zh-CN',
    text: `${type} ${id}`,
    sourceHash: hash('sha256', `${type} ${id}`, 'hex'),
    sourceVersion: 1,
  });
  await em.flush();
}

const requested = async (entityType: string) =>
  (await orm.em.fork().find(OutboxMessage, { eventType: 'TranslationRequested' })).filter((row) =>
    row.messageKey?.startsWith(`${entityType}:`),
  ).length;

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: uniquePrefix('module-scope') });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
  await source('shop', 'product', 'p-1');
  await source('shop', 'product', 'p-2');
  await source('cms', 'page', 'home');
  await source('billing', 'invoice', 'i-1');
  shopKey = ((await createKey({ role: 'client', modules: ['shop'] })).body.data as { key: string }).key;
  shopCmsKey = (
    (await createKey({ role: 'client', modules: ['shop', 'cms', 'shop'] })).body.data as { key: string }
  ).key;
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

describe('creating scoped keys', () => {
  it('stores the modules once each, sorted, and shows them in /api/v1/me and the key list', async () => {
    const me = await call('get', '/api/v1/me', '/api/v1/me', shopCmsKey);
    expect(me.body.data).toMatchObject({ role: 'client', modules: ['cms', 'shop'] });
    const unscoped = await call('get', '/api/v1/me', '/api/v1/me', gateway.keys.client);
    expect(unscoped.body.data).toMatchObject({ modules: null });

    const list = await call('get', '/api/admin/keys', '/api/admin/keys', gateway.keys.admin);
    const keys = (list.body.data as { keys: { prefix: string; modules: string[] | null }[] }).keys;
    expect(keys.find((k) => shopKey.startsWith(k.prefix))?.modules).toEqual(['shop']);
    expect(keys.find((k) => gateway.keys.client.startsWith(k.prefix))?.modules).toBeNull();
  });

  it('refuses malformed module names, an empty or oversized scope, and a scoped admin key with 400', async () => {
    for (const body of [
      { role: 'client', modules: ['Shop'] },
      { role: 'client', modules: ['shop/cms'] },
      { role: 'client', modules: ['x'.repeat(101)] },
      { role: 'client', modules: [] },
      { role: 'client', modules: Array.from({ length: 51 }, (_, i) => `m${i}`) },
      { role: 'client', modules: 'shop' },
      { role: 'admin', modules: ['shop'] },
    ]) {
      const res = await createKey(body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({
        body,
        status: 400,
        error: 'VALIDATION_FAILED',
      });
    }
  });
});

describe('reporting with a scoped key', () => {
  const PATH = '/api/v1/content/{module}/{type}/{id}';
  const change = { source_lang: 'en', source_version: 1, fields: { name: 'Hello' } };

  it('accepts a report to one of its modules', async () => {
    const res = await call('post', PATH, '/api/v1/content/shop/product/p-3', shopKey, change);
    expect(res.status).toBe(202);
  });

  it('answers 403 MODULE_NOT_ALLOWED for another module, and writes nothing', async () => {
    const before = await orm.em.fork().count(OutboxMessage, { eventType: 'ContentChanged' });
    const res = await call('post', PATH, '/api/v1/content/cms/page/about', shopKey, change);
    expect(res).toMatchObject({
      status: 403,
      body: { code: 40302, error: 'MODULE_NOT_ALLOWED', details: { module: 'cms' } },
    });
    expect(await orm.em.fork().count(OutboxMessage, { eventType: 'ContentChanged' })).toBe(before);
  });

  it('learns that a type is taken, but not by which module outside its scope', async () => {
    const res = await call('post', PATH, '/api/v1/content/shop/invoice/i-9', shopKey, change);
    expect(res).toMatchObject({
      status: 409,
      body: { error: 'MODULE_CONFLICT', details: { type: 'invoice' } },
    });
    expect(JSON.stringify(res.body)).not.toContain('billing');

    // Within its scope the owner is named, as for an unscoped key.
    const inside = await call('post', PATH, '/api/v1/content/shop/page/home', shopCmsKey, change);
    expect(inside).toMatchObject({ status: 409, body: { details: { module: 'cms' } } });
    const unscoped = await call(
      'post',
      PATH,
      '/api/v1/content/shop/invoice/i-9',
      gateway.keys.client,
      change,
    );
    expect(unscoped).toMatchObject({ status: 409, body: { details: { module: 'billing' } } });
  });
});

describe('reading with a scoped key', () => {
  const ONE = '/api/v1/content/{type}/{id}';

  it('reads entities of its modules', async () => {
    const res = await call('get', ONE, '/api/v1/content/product/p-1', shopKey);
    expect(res).toMatchObject({ status: 200, body: { data: { module: 'shop', id: 'p-1' } } });
    const page = await call('get', ONE, '/api/v1/content/page/home', shopCmsKey);
    expect(page).toMatchObject({ status: 200, body: { data: { module: 'cms' } } });
  });

  it("answers another module's entity exactly as one that does not exist, and requests nothing for it", async () => {
    await source('cms', 'page', 'about');
    await call('get', ONE, '/api/v1/content/page/home', shopCmsKey); // puts home in the read cache
    const before = await requested('page');
    for (const id of ['about', 'home']) {
      const hidden = await call('get', ONE, `/api/v1/content/page/${id}`, shopKey);
      const absent = await call('get', ONE, '/api/v1/content/page/nope', shopKey);
      expect(hidden.status).toBe(404);
      const same = { ...absent.body, request_id: hidden.body.request_id };
      expect(hidden.body).toEqual(JSON.parse(JSON.stringify(same).replaceAll('nope', id)));
    }
    expect(await requested('page')).toBe(before);
    // An unscoped key still reads it, and its read asks for the translation the hidden read did not.
    expect((await call('get', ONE, '/api/v1/content/page/about', gateway.keys.client)).status).toBe(200);
    expect(await requested('page')).toBeGreaterThan(before);
  });

  it('reads on the write path only in its modules: 403 MODULE_NOT_ALLOWED for another, as a report', async () => {
    const MODULE_ONE = '/api/v1/content/{module}/{type}/{id}';
    const own = await call('get', MODULE_ONE, '/api/v1/content/shop/product/p-1', shopKey);
    expect(own).toMatchObject({ status: 200, body: { data: { module: 'shop', id: 'p-1' } } });
    const other = await call('get', MODULE_ONE, '/api/v1/content/billing/invoice/i-1', shopKey);
    expect(other).toMatchObject({
      status: 403,
      body: { error: 'MODULE_NOT_ALLOWED', details: { module: 'billing' } },
    });
    const unscoped = await call(
      'get',
      MODULE_ONE,
      '/api/v1/content/billing/invoice/i-1',
      gateway.keys.client,
    );
    expect(unscoped.status).toBe(200);
  });

  it('hides vendors of other modules on /api/v1/vendors/{vendor_id} too', async () => {
    await source('suppliers', 'vendor', 'v-1');
    const res = await call('get', '/api/v1/vendors/{vendor_id}', '/api/v1/vendors/v-1', shopKey);
    expect(res).toMatchObject({ status: 404, body: { error: 'ENTITY_NOT_FOUND' } });
    const unscoped = await call(
      'get',
      '/api/v1/vendors/{vendor_id}',
      '/api/v1/vendors/v-1',
      gateway.keys.client,
    );
    expect(unscoped.status).toBe(200);
  });

  it('lists ids of other modules among the missing ones in a list read', async () => {
    await source('cms', 'product', 'p-cms');
    const res = await call(
      'get',
      '/api/v1/content/{type}',
      '/api/v1/content/product?ids=p-2,p-cms,nope,p-1',
      shopKey,
    );
    expect(res.status).toBe(200);
    const data = res.body.data as { items: { id: string }[]; missing: string[] };
    expect(data.items.map((item) => item.id)).toEqual(['p-2', 'p-1']);
    expect(data.missing).toEqual(['p-cms', 'nope']);
  });
});

describe('admin routes', () => {
  it('stay closed to scoped keys (client keys), retranslation among them', async () => {
    const path = '/api/admin/translate/retranslate/{module}/{type}/{id}';
    const res = await call('post', path, '/api/admin/translate/retranslate/shop/product/p-1', shopKey);
    expect(res).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
  });
});
