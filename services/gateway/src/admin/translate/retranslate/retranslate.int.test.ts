import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { TranslationRequested } from '@tp/contracts';
import { connectDatabase, OutboxMessage, SourceContent, TranslationConfig, type Orm } from '@tp/db';
import { requestedFields } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../../test/openapi-contract.js';

const prefix = uniquePrefix('retranslate');
const codec = new EventCodec();
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: prefix });
  contract = new OpenApiContract(gateway.openapi);
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  const em = orm.em.fork();
  for (const [field, text] of [
    ['name', '你好'],
    ['bio', '世界'],
  ] as const) {
    em.create(SourceContent, {
      module: 'catalog',
      entityType: 'vendor',
      entityId: 'v-1',
      field,
      sourceLang: 'zh-CN',
      text,
      sourceHash: `${field}-hash`.padEnd(64, '0'),
      sourceVersion: 3,
    });
  }
  await em.flush();
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

beforeEach(async () => {
  await orm.em.fork().nativeDelete(OutboxMessage, {});
});

async function retranslate(path: string, key = gateway.keys.admin) {
  const res = await fetch(`${gateway.url}/api/admin/translate/retranslate/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as { code: number; error?: string; data?: unknown };
  contract.check('post', '/api/admin/translate/retranslate/{module}/{type}/{id}', res.status, body);
  return { status: res.status, requestId: res.headers.get('x-request-id'), body };
}

async function configure(targetLanguages: string[], enabled = true) {
  await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages, enabled });
}

async function outbox() {
  const rows = await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
  return rows.map((row) => ({
    topic: row.topic,
    key: row.messageKey,
    event: codec.decode(Buffer.from(row.payload), row.headers) as TranslationRequested,
  }));
}

describe('POST /api/admin/translate/retranslate/:module/:type/:id', () => {
  it('queues every field in each target language, one TranslationRequested per language, skipping the source language', async () => {
    await configure(['en', 'zh-CN', 'ja']);
    const reply = await retranslate('catalog/vendor/v-1');
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      code: 0,
      data: { requested: 4, fields: ['bio', 'name'], target_languages: ['en', 'ja'] },
    });

    const rows = await outbox();
    expect(rows.map((row) => [row.topic, row.key])).toEqual([
      [`${prefix}translation.requested.v1`, 'vendor:v-1:en'],
      [`${prefix}translation.requested.v1`, 'vendor:v-1:ja'],
    ]);
    expect(rows.map((row) => requestedFields(row.event.data).map((f) => f.field))).toEqual([
      ['bio', 'name'],
      ['bio', 'name'],
    ]);
    expect(requestedFields(rows[0]!.event.data)[1]).toEqual({
      field: 'name',
      text: '你好',
      sourceHash: 'name-hash'.padEnd(64, '0'),
      sourceVersion: 3,
      format: 'text',
    });
    expect(rows[0]?.event).toMatchObject({
      eventType: 'TranslationRequested',
      correlationId: reply.requestId,
      causationId: reply.requestId,
      data: {
        entityType: 'vendor',
        entityId: 'v-1',
        sourceLang: 'zh-CN',
        targetLang: 'en',
      },
    });
  });

  it('works while the configuration is disabled: an explicit operator action', async () => {
    await configure(['de'], false);
    const reply = await retranslate('catalog/vendor/v-1');
    expect(reply.status).toBe(202);
    expect(reply.body.data).toEqual({ requested: 2, fields: ['bio', 'name'], target_languages: ['de'] });
    expect(await outbox()).toHaveLength(1);
  });

  it('answers 404 ENTITY_NOT_FOUND for an unknown id, or a type that belongs to another module', async () => {
    for (const path of ['catalog/vendor/nope', 'billing/vendor/v-1', 'catalog/product/v-1']) {
      const reply = await retranslate(path);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ code: 40403, error: 'ENTITY_NOT_FOUND' });
    }
    expect(await outbox()).toEqual([]);
  });

  it('answers 400 for an address the content routes would refuse (a NUL byte, an upper-case type), queuing nothing', async () => {
    for (const path of ['%00/%00/%00', 'catalog/vendor/v%001', 'catalog/Vendor/v-1']) {
      const reply = await retranslate(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 400 });
      expect(reply.body).toMatchObject({ error: 'VALIDATION_FAILED' });
    }
    expect(await outbox()).toEqual([]);
  });

  it('is for admins only', async () => {
    expect((await retranslate('catalog/vendor/v-1', gateway.keys.client)).status).toBe(403);
    expect(await outbox()).toEqual([]);
  });
});
