import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { connectDatabase, SourceContent, TranslationBackfill, TranslationConfig, type Orm } from '@tp/db';
import { sourceHash } from '@tp/pipeline';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../../test/openapi-contract.js';

const prefix = uniquePrefix('backfill');
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;

interface Reply {
  status: number;
  body: { code: number; error?: string; message?: string; data?: Record<string, unknown> };
}

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: prefix });
  contract = new OpenApiContract(gateway.openapi);
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  const em = orm.em.fork();
  for (const [type, id, field, text] of [
    ['vendor', 'v-1', 'name', 'Good morning'],
    ['vendor', 'v-1', 'bio', 'We sell bread'],
    ['dish', 'd-1', 'name', 'Hot soup'],
  ] as const) {
    em.create(SourceContent, {
      module: 'catalog',
      entityType: type,
      entityId: id,
      field,
      sourceLang: 'en',
      text,
      sourceHash: sourceHash(text),
      sourceVersion: 1,
    });
  }
  await em.flush();
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

beforeEach(async () => {
  await orm.em.fork().nativeDelete(TranslationBackfill, {});
  await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages: ['en', 'es', 'ca'] });
});

async function call(method: string, path: string, body?: string, key = gateway.keys.admin): Promise<Reply> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  const template = path.startsWith('/api/admin/translate/backfill/')
    ? '/api/admin/translate/backfill/{id}'
    : path;
  contract.check(method.toLowerCase(), template, reply.status, reply.body);
  return reply;
}

const start = (body: unknown) => call('POST', '/api/admin/translate/backfill', JSON.stringify(body));
const cancel = (id: string) => call('DELETE', `/api/admin/translate/backfill/${id}`);

describe('POST /api/admin/translate/backfill', () => {
  it('starts a backfill of a configured language counting the fields that lack it, and answers the running one when asked again', async () => {
    const first = await start({ language: 'CA' });
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({
      created: true,
      backfill: {
        language: 'ca',
        module: null,
        entity_type: null,
        origin: 'operator',
        status: 'running',
        total: 3,
      },
    });
    const again = await start({ language: 'ca' });
    expect(again.body.data).toMatchObject({
      created: false,
      backfill: { id: (first.body.data?.backfill as { id: string }).id },
    });
    const typed = await start({ language: 'ca', module: 'catalog', entity_type: 'dish' });
    expect(typed.body.data).toMatchObject({ created: true, backfill: { entity_type: 'dish', total: 1 } });
  });

  it('shows the backfills with their progress in GET /api/admin/translate/status', async () => {
    const started = await start({ language: 'es' });
    const id = (started.body.data?.backfill as { id: string }).id;
    const status = await call('GET', '/api/admin/translate/status');
    const { latest } = status.body.data?.backfills as { latest: Record<string, unknown>[] };
    expect(latest.find((b) => b.id === id)).toMatchObject({
      language: 'es',
      status: 'running',
      total: 3,
      done: 0,
      failed: 0,
      remaining: 3,
      eta_s: null,
    });
  });

  it.each([
    ['an unsupported language', { language: 'klingon' }, 400, 'UNSUPPORTED_LANGUAGE', 40004],
    ['a language that is not configured', { language: 'de' }, 409, 'LANGUAGE_NOT_CONFIGURED', 40904],
    ['a language that is not a string', { language: 7 }, 400, 'VALIDATION_FAILED', 40002],
    ['no language', { module: 'catalog' }, 400, 'VALIDATION_FAILED', 40002],
    ['an unknown filter', { language: 'es', colour: 'red' }, 400, 'VALIDATION_FAILED', 40002],
    ['a malformed module', { language: 'es', module: 'Cat alog' }, 400, 'VALIDATION_FAILED', 40002],
    ['a module with no content', { language: 'es', module: 'nobody' }, 404, 'ENTITY_NOT_FOUND', 40403],
    ['a type with no content', { language: 'es', entity_type: 'ghost' }, 404, 'ENTITY_NOT_FOUND', 40403],
    ['a language of 10,000 characters', { language: 'e'.repeat(10_000) }, 400, 'VALIDATION_FAILED', 40002],
  ])('refuses %s with a stable code', async (_name, body, status, error, code) => {
    const reply = await start(body);
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ code, error });
    expect(await orm.em.fork().count(TranslationBackfill)).toBe(0);
  });

  it('refuses a huge body, malformed JSON and a client key', async () => {
    const huge = await call(
      'POST',
      '/api/admin/translate/backfill',
      JSON.stringify({ language: 'es', pad: 'x'.repeat(3_000_000) }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('PAYLOAD_TOO_LARGE');
    const malformed = await call('POST', '/api/admin/translate/backfill', '{"language":');
    expect(malformed.body).toMatchObject({ code: 40001, error: 'MALFORMED_JSON' });
    const client = await call(
      'POST',
      '/api/admin/translate/backfill',
      '{"language":"es"}',
      gateway.keys.client,
    );
    expect(client.body).toMatchObject({ error: 'FORBIDDEN' });
  });
});

describe('DELETE /api/admin/translate/backfill/{id}', () => {
  it('cancels a running backfill once; then 409 CONFLICT', async () => {
    const started = await start({ language: 'es' });
    const id = (started.body.data?.backfill as { id: string }).id;
    const cancelled = await cancel(id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled' });
    expect((await cancel(id)).body).toMatchObject({ code: 40902, error: 'CONFLICT' });
  });

  it('answers 404 BACKFILL_NOT_FOUND for an unknown id and 400 for one that is not a uuid', async () => {
    expect((await cancel(randomUUID())).body).toMatchObject({ code: 40406, error: 'BACKFILL_NOT_FOUND' });
    expect((await cancel('not-a-uuid')).body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
  });
});

describe('PUT /api/admin/translate/config', () => {
  it('starts the backfill of a language added, and stops it when the language is removed', async () => {
    await call(
      'PUT',
      '/api/admin/translate/config',
      JSON.stringify({ target_languages: ['en', 'es', 'ca', 'fr'] }),
    );
    const [added] = await orm.em.fork().find(TranslationBackfill, { language: 'fr' });
    expect(added).toMatchObject({ origin: 'config', status: 'running', total: 3 });
    await call('PUT', '/api/admin/translate/config', JSON.stringify({ target_languages: ['en', 'es'] }));
    const [removed] = await orm.em.fork().find(TranslationBackfill, { language: 'fr' });
    expect(removed?.status).toBe('stopped');
    expect(await orm.em.fork().count(TranslationBackfill, { language: { $ne: 'fr' } })).toBe(0);
  });
});
