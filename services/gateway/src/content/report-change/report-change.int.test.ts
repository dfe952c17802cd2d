import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName, type ContentChanged } from '@tp/contracts';
import { connectDatabase, ContentReport, OutboxMessage, type Orm } from '@tp/db';
import { EventCodec } from '@tp/schemas';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { seedSource } from '../../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';
import { ReportContentChangeCommand } from './report-change.command.js';
import { ReportContentChangeHandler } from './report-change.handler.js';

// The command side through the real gateway (auth, validation, the Nest CommandBus, the outbox) on a
// database of its own. Nothing relays the outbox here: the rows are the result.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
const codec = new EventCodec();
const topicPrefix = uniquePrefix('report-change');
const PATH = '/api/v1/content/{module}/{type}/{id}';

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: topicPrefix, MAX_TEXT_CHARS: '20' });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

async function report(path: string, body: unknown, key: string | null = gateway.keys.client) {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-request-id': 'req-report-1',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  contract.check('post', PATH, res.status, json);
  return { status: res.status, body: json };
}

const valid = { source_lang: 'zh-cn', source_version: 3, fields: { name: '华为', 'address.city': '深圳' } };

describe('POST /api/v1/content/{module}/{type}/{id}', () => {
  it('answers 202 with a tracking id and writes the ContentChanged event to the outbox', async () => {
    const res = await report('/api/v1/content/catalog/vendor/v-42', valid);
    expect(res).toEqual({
      status: 202,
      body: { code: 0, data: { tracking_id: expect.any(String), status: 'accepted' } },
    });
    const trackingId = (res.body.data as { tracking_id: string }).tracking_id;

    const rows = await orm.em.fork().find(OutboxMessage, { eventId: trackingId });
    expect(rows).toHaveLength(1);
    const row = rows[0] as OutboxMessage;
    expect(row).toMatchObject({
      topic: topicName('contentChanged', topicPrefix),
      messageKey: 'vendor:v-42',
      eventType: 'ContentChanged',
      publishedAt: null,
    });
    expect(codec.decode(Buffer.from(row.payload), row.headers)).toEqual({
      eventId: trackingId,
      eventType: 'ContentChanged',
      eventVersion: 2,
      occurredAt: expect.any(Number),
      correlationId: 'req-report-1',
      causationId: null,
      data: {
        module: 'catalog',
        entityType: 'vendor',
        entityId: 'v-42',
        sourceLang: 'zh-CN',
        sourceVersion: 3,
        fields: [
          { name: 'name', text: '华为', format: 'text' },
          { name: 'address.city', text: '深圳', format: 'text' },
        ],
      },
    });
  });

  it('carries the format of each field named in formats (text for the others), and refuses a format of no field', async () => {
    const res = await report('/api/v1/content/catalog/vendor/v-rich', {
      ...valid,
      fields: { name: '华为', body: '<p>你好 <b>世界</b></p>', notes: '*好*' },
      formats: { body: 'html', notes: 'markdown' },
    });
    expect(res.status).toBe(202);
    const trackingId = (res.body.data as { tracking_id: string }).tracking_id;
    const [row] = await orm.em.fork().find(OutboxMessage, { eventId: trackingId });
    const event = codec.decode(Buffer.from(row!.payload), row!.headers) as ContentChanged;
    expect(event.data.fields.map(({ name, format }) => [name, format])).toEqual([
      ['name', 'text'],
      ['body', 'html'],
      ['notes', 'markdown'],
    ]);

    const stray = await report('/api/v1/content/catalog/vendor/v-rich', {
      ...valid,
      formats: { body: 'html' },
    });
    expect(stray).toMatchObject({
      status: 400,
      body: { error: 'VALIDATION_FAILED', details: { issues: [{ path: 'body.formats.body' }] } },
    });
    const unknown = await report('/api/v1/content/catalog/vendor/v-rich', {
      ...valid,
      formats: { name: 'rtf' },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
  });

  it('accepts an admin key too', async () => {
    const res = await report('/api/v1/content/catalog/vendor/v-43', valid, gateway.keys.admin);
    expect(res.status).toBe(202);
  });

  it('answers 401 without a key, and writes nothing', async () => {
    const before = await orm.em.fork().count(OutboxMessage, {});
    const res = await report('/api/v1/content/catalog/vendor/v-44', valid, null);
    expect(res).toMatchObject({ status: 401, body: { error: 'API_KEY_MISSING' } });
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(before);
  });

  it.each([
    ['no fields', { ...valid, fields: {} }, ['body.fields']],
    ['an empty text', { ...valid, fields: { name: '' } }, ['body.fields.name']],
    ['a text over MAX_TEXT_CHARS', { ...valid, fields: { name: '字'.repeat(21) } }, ['body.fields.name']],
    ['a bad field name', { ...valid, fields: { 'no spaces': 'x' } }, ['body.fields.no spaces']],
    [
      'a __proto__ field',
      { ...valid, fields: JSON.parse('{"__proto__": "x"}') as object },
      ['body.fields.__proto__'],
    ],
    [
      'a __proto__ field beside others',
      { ...valid, fields: JSON.parse('{"name": "x", "__proto__": "y"}') as object },
      ['body.fields.__proto__'],
    ],
    ['201 fields', { ...valid, fields: manyFields(201) }, ['body.fields']],
    ['a negative version', { ...valid, source_version: -1 }, ['body.source_version']],
    ['a fractional version', { ...valid, source_version: 1.5 }, ['body.source_version']],
    ['a malformed language', { ...valid, source_lang: 'zh cn' }, ['body.source_lang']],
    ['an unknown field', { ...valid, extra: 1 }, ['body']],
    ['nothing', {}, ['body.source_lang', 'body.source_version', 'body.fields']],
  ])('answers 400 VALIDATION_FAILED listing the issues for %s', async (_label, body, paths) => {
    const res = await report('/api/v1/content/catalog/vendor/v-45', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    const issues = (res.body.details as { issues: { path: string }[] }).issues.map((i) => i.path);
    expect(issues).toEqual(expect.arrayContaining(paths));
  });

  it.each([
    ['an upper-case type', '/api/v1/content/catalog/Vendor/v-1', 'params.type'],
    ['a module with a dot', '/api/v1/content/cat.alog/vendor/v-1', 'params.module'],
    ['an id over 200 characters', `/api/v1/content/catalog/vendor/${'x'.repeat(201)}`, 'params.id'],
    ['an id with a NUL', '/api/v1/content/catalog/vendor/a%00b', 'params.id'],
  ])('answers 400 for %s', async (_label, path, where) => {
    const res = await report(path, valid);
    expect(res.status).toBe(400);
    expect((res.body.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(where);
  });

  it('answers 400 UNSUPPORTED_LANGUAGE for a source language not in the list', async () => {
    const res = await report('/api/v1/content/catalog/vendor/v-46', { ...valid, source_lang: 'qq' });
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'UNSUPPORTED_LANGUAGE', details: { field: 'source_lang', value: 'qq' } },
    });
  });

  it('answers 400 ENTITY_TYPE_RESERVED for type text, which the planner would dead-letter, and writes nothing', async () => {
    const before = await orm.em.fork().count(OutboxMessage, {});
    const res = await report('/api/v1/content/catalog/text/t-1', valid);
    expect(res).toMatchObject({ status: 400, body: { code: 40007, error: 'ENTITY_TYPE_RESERVED' } });
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(before);
    expect((await report('/api/v1/content/catalog/texts/t-1', valid)).status).toBe(202);
  });

  it('answers 409 MODULE_CONFLICT when another module owns the type, and writes nothing', async () => {
    await seedSource(orm, { module: 'crm', type: 'customer', id: 'c-1', sourceLang: 'en' }, { name: 'ACME' });
    const before = await orm.em.fork().count(OutboxMessage, {});
    const res = await report('/api/v1/content/catalog/customer/c-2', valid);
    expect(res).toMatchObject({ status: 409, body: { code: 40903, error: 'MODULE_CONFLICT' } });
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(before);
    // The owning module may go on reporting it.
    expect((await report('/api/v1/content/crm/customer/c-2', valid)).status).toBe(202);
  });

  it('accepts reports sent at once, written together, and refuses one of a type another module owns alone', async () => {
    await seedSource(
      orm,
      { module: 'billing', type: 'account', id: 'a-1', sourceLang: 'en' },
      { name: 'ACME' },
    );
    const paths = Array.from({ length: 30 }, (_, i) => `/api/v1/content/catalog/product/p-${i}`);
    paths.splice(13, 0, '/api/v1/content/catalog/account/a-2');

    const answers = await Promise.all(paths.map((path) => report(path, valid)));

    expect(answers.map((answer) => answer.status)).toEqual(paths.map((_, i) => (i === 13 ? 409 : 202)));
    expect(answers[13]?.body).toMatchObject({ error: 'MODULE_CONFLICT' });
    const ids = answers.flatMap(
      ({ body }) => (body.data as { tracking_id?: string } | undefined)?.tracking_id ?? [],
    );
    expect(new Set(ids).size).toBe(30);
    const rows = await orm.em.fork().find(OutboxMessage, { eventId: { $in: ids } });
    expect(rows.map((row) => row.messageKey).sort()).toEqual(
      paths
        .filter((_, i) => i !== 13)
        .map((path) => `product:${path.split('/').pop()}`)
        .sort(),
    );
    expect(await orm.em.fork().count(ContentReport, { trackingId: { $in: ids } })).toBe(30);
    expect(await orm.em.fork().count(OutboxMessage, { messageKey: 'account:a-2' })).toBe(0);
  });
});

describe('ReportContentChangeHandler', () => {
  it('writes reports that wait together in one transaction, and when it fails, each alone: only the failing one fails', async () => {
    const handler = new ReportContentChangeHandler({ orm, codec, topicPrefix });
    const change = (id: string) => ({
      module: 'catalog',
      entityType: 'widget',
      entityId: id,
      sourceLang: 'en',
      sourceVersion: 1,
      fields: [{ name: 'name', text: 'Widget', format: 'text' as const }],
    });
    const key = randomUUID();
    // The first starts a transaction at once; the two others wait for it and go together. The third's
    // tracking row cannot be stored (its key id is no UUID), which fails their joint transaction.
    const answers = await Promise.allSettled([
      handler.execute(new ReportContentChangeCommand(change('w-1'), 'req-1', key)),
      handler.execute(new ReportContentChangeCommand(change('w-2'), 'req-2', key)),
      handler.execute(new ReportContentChangeCommand(change('w-3'), 'req-3', 'not-a-uuid')),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const keys = (await orm.em.fork().find(OutboxMessage, { messageKey: { $like: 'widget:%' } })).map(
      (row) => row.messageKey,
    );
    expect(keys.sort()).toEqual(['widget:w-1', 'widget:w-2']);
    expect(await orm.em.fork().count(ContentReport, { entityType: 'widget' })).toBe(2);
  });
});

function manyFields(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'x']));
}
