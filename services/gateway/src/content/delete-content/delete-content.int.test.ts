import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { connectDatabase, ContentReport, OutboxMessage, SourceContent, type Orm } from '@tp/db';
import { EventCodec } from '@tp/schemas';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { seedSource } from '../../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';

// The deletion command through the real gateway (auth, validation, the CommandBus, the outbox) on a
// database of its own. Nothing relays the outbox here: the rows are the result; the worker's side is
// in services/worker/src/content-lifecycle.int.test.ts and the e2e test.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
const codec = new EventCodec();
const topicPrefix = uniquePrefix('delete-content');
const PATH = '/api/v1/content/{module}/{type}/{id}';

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: topicPrefix });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

async function remove(path: string, key: string | null = gateway.keys.client) {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'DELETE',
    headers: { 'x-request-id': 'req-delete-1', ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
  const json = (await res.json()) as Record<string, unknown>;
  contract.check('delete', PATH, res.status, json);
  return { status: res.status, body: json };
}

const outboxRows = () => orm.em.fork().count(OutboxMessage, {});

describe('DELETE /api/v1/content/{module}/{type}/{id}', () => {
  it('answers 202 with a tracking id, writes ContentDeleted to the content topic and tracks it for the key', async () => {
    const res = await remove('/api/v1/content/catalog/vendor/v-gone?source_version=7');
    expect(res).toEqual({
      status: 202,
      body: { code: 0, data: { tracking_id: expect.any(String), status: 'accepted' } },
    });
    const trackingId = (res.body.data as { tracking_id: string }).tracking_id;
    const row = await orm.em.fork().findOneOrFail(OutboxMessage, { eventId: trackingId });
    expect(row).toMatchObject({
      topic: topicName('contentChanged', topicPrefix),
      messageKey: 'vendor:v-gone',
      eventType: 'ContentDeleted',
    });
    expect(codec.decode(Buffer.from(row.payload), row.headers)).toMatchObject({
      eventId: trackingId,
      eventType: 'ContentDeleted',
      correlationId: 'req-delete-1',
      data: { module: 'catalog', entityType: 'vendor', entityId: 'v-gone', sourceVersion: 7 },
    });
    const report = await orm.em.fork().findOneOrFail(ContentReport, { trackingId });
    expect(report).toMatchObject({ kind: 'delete', entityId: 'v-gone', sourceVersion: 7, plannedAt: null });
    expect(report.apiKeyId).toEqual(expect.any(String));
  });

  it('sends no version when none is given: the worker takes the highest stored one', async () => {
    const res = await remove('/api/v1/content/catalog/vendor/v-nover');
    const trackingId = (res.body.data as { tracking_id: string }).tracking_id;
    const row = await orm.em.fork().findOneOrFail(OutboxMessage, { eventId: trackingId });
    const event = codec.decode(Buffer.from(row.payload), row.headers);
    expect(event.data).toMatchObject({ entityId: 'v-nover', sourceVersion: null });
  });

  it.each([
    ['a negative version', '/api/v1/content/catalog/vendor/v-1?source_version=-1', 'query.source_version'],
    ['a fractional version', '/api/v1/content/catalog/vendor/v-1?source_version=1.5', 'query.source_version'],
    ['an unknown parameter', '/api/v1/content/catalog/vendor/v-1?force=1', 'query'],
    ['an upper-case type', '/api/v1/content/catalog/Vendor/v-1', 'params.type'],
    ['an id with a NUL', '/api/v1/content/catalog/vendor/a%00b', 'params.id'],
  ])('answers 400 VALIDATION_FAILED for %s, and writes nothing', async (_label, path, where) => {
    const before = await outboxRows();
    const res = await remove(path);
    expect(res).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
    expect((res.body.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(where);
    expect(await outboxRows()).toBe(before);
  });

  it.each(['text', 'tracking'])('answers 400 ENTITY_TYPE_RESERVED for type %s', async (type) => {
    const res = await remove(`/api/v1/content/catalog/${type}/t-1`);
    expect(res).toMatchObject({ status: 400, body: { error: 'ENTITY_TYPE_RESERVED' } });
  });

  it.each(['constructor', '__proto__'])(
    'takes type %s, a name only the prototype of an object has, as any other type (202)',
    async (type) => {
      const res = await remove(`/api/v1/content/catalog/${type}/t-1`);
      expect(res).toMatchObject({ status: 202, body: { data: { tracking_id: expect.any(String) } } });
    },
  );

  it('answers 401 without a key, and 409 MODULE_CONFLICT for a type another module owns, writing nothing', async () => {
    await seedSource(orm, { module: 'crm', type: 'customer', id: 'c-1', sourceLang: 'en' }, { name: 'ACME' });
    const before = await outboxRows();
    expect((await remove('/api/v1/content/crm/customer/c-1', null)).status).toBe(401);
    expect(await remove('/api/v1/content/catalog/customer/c-1')).toMatchObject({
      status: 409,
      body: { error: 'MODULE_CONFLICT' },
    });
    expect(await outboxRows()).toBe(before);
    expect((await remove('/api/v1/content/crm/customer/c-1')).status).toBe(202);
  });

  it('answers 403 MODULE_NOT_ALLOWED to a key scoped to other modules, and hides which module owns a type', async () => {
    const shop = (await gateway.store.create('client', 'shop only', { modules: ['shop'] })).key;
    expect(await remove('/api/v1/content/catalog/vendor/v-1', shop)).toMatchObject({
      status: 403,
      body: { error: 'MODULE_NOT_ALLOWED' },
    });
    const em = orm.em.fork();
    em.create(SourceContent, {
      module: 'crm',
      entityType: 'lead',
      entityId: 'l-1',
      field: 'name',
      sourceLang: 'en',
      text: 'ACME',
      sourceHash: 'h',
      sourceVersion: 1,
    });
    await em.flush();
    // The conflict names no module outside the key's scope.
    const conflict = await remove('/api/v1/content/shop/lead/l-1', shop);
    expect(conflict).toMatchObject({ status: 409, body: { error: 'MODULE_CONFLICT' } });
    expect(JSON.stringify(conflict.body)).not.toContain('crm');
  });
});
