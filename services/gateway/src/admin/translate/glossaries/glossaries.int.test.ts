import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { connectDatabase, GlossaryDeletion, type Orm } from '@tp/db';
import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../../test/openapi-contract.js';

interface Reply {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape differs per route
  readonly body: { code: number; error?: string; data?: any; details?: any };
}

let gateway: TestGateway;
let contract: OpenApiContract;
let orm: Orm;

beforeAll(async () => {
  gateway = await startTestGateway();
  contract = new OpenApiContract(gateway.openapi);
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

const BASE = '/api/admin/translate/glossaries';

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  key = gateway.keys.admin,
): Promise<Reply> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  const template = path === BASE ? BASE : `${BASE}/{id}`;
  contract.check(method.toLowerCase(), template, reply.status, reply.body);
  return reply;
}

describe('/api/admin/translate/glossaries', () => {
  it('creates from CSV, lists, reads, updates with a new version, and deletes', async () => {
    const created = await call('POST', BASE, {
      name: 'Brand terms',
      source_lang: 'EN',
      target_lang: 'es',
      entries: 'Acme,Acme\n"Smith, Jones",Smith y Jones\r\n',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Brand terms',
      source_lang: 'en',
      target_lang: 'es',
      entry_count: 2,
      entries: [
        { source: 'Acme', target: 'Acme' },
        { source: 'Smith, Jones', target: 'Smith y Jones' },
      ],
    });
    const { id, version } = created.body.data as { id: string; version: number };

    const list = await call('GET', BASE);
    expect(list.body.data.glossaries).toEqual([expect.objectContaining({ id, entry_count: 2, version })]);
    expect(list.body.data.glossaries[0]).not.toHaveProperty('entries');

    expect((await call('GET', `${BASE}/${id}`)).body.data).toEqual(created.body.data);

    const updated = await call('PUT', `${BASE}/${id}`, {
      entries: [{ source: ' Widget ', target: 'Artilugio' }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Brand terms',
      entry_count: 1,
      entries: [{ source: 'Widget', target: 'Artilugio' }],
    });
    expect(updated.body.data.version).toBeGreaterThan(version);

    const renamed = await call('PUT', `${BASE}/${id}`, { name: 'Products' });
    expect(renamed.body.data).toMatchObject({ name: 'Products', entry_count: 1 });
    expect(renamed.body.data.version).toBeGreaterThan(updated.body.data.version);

    expect((await call('DELETE', `${BASE}/${id}`)).body.data).toMatchObject({ id, name: 'Products' });
    expect(await call('GET', `${BASE}/${id}`)).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    expect((await call('GET', BASE)).body.data.glossaries).toEqual([]);
  });

  it('records a deletion, in its transaction, for the translator to delete the copies at DeepL', async () => {
    const created = await call('POST', BASE, {
      name: 'Deleted', source_lang: 'en', target_lang: 'it', entries: [{ source: 'Acme', target: 'Acme' }],
    }); // prettier-ignore
    const { id } = created.body.data as { id: string };
    const deletions = async () =>
      (await orm.em.fork().find(GlossaryDeletion, { glossaryId: id })).map((d) => d.glossaryId);
    expect(await deletions()).toEqual([]);

    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect(await deletions()).toEqual([id]);
    // Deleting it again finds nothing and records nothing more.
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(404);
    expect(await deletions()).toHaveLength(1);
  });

  it('refuses a second glossary for the same pair with 409 CONFLICT and gives the new one a later version after a delete', async () => {
    const first = await call('POST', BASE, {
      name: 'a',
      source_lang: 'en',
      target_lang: 'fr',
      entries: [{ source: 'x', target: 'y' }],
    });
    const again = await call('POST', BASE, {
      name: 'b',
      source_lang: 'en',
      target_lang: 'fr',
      entries: 'p,q',
      entries_format: 'csv',
    });
    expect(again).toMatchObject({
      status: 409,
      body: { error: 'CONFLICT', details: { existing: { id: first.body.data.id } } },
    });
    await call('DELETE', `${BASE}/${first.body.data.id}`);
    const second = await call('POST', BASE, {
      name: 'b',
      source_lang: 'en',
      target_lang: 'fr',
      entries: 'p\tq',
      entries_format: 'tsv',
    });
    expect(second.status).toBe(201);
    expect(second.body.data.version).toBeGreaterThan(first.body.data.version);
    await call('DELETE', `${BASE}/${second.body.data.id}`);
  });

  it('answers 400 GLOSSARY_ENTRIES_INVALID for malformed CSV, naming each line, and stores nothing', async () => {
    const reply = await call('POST', BASE, {
      name: 'bad',
      source_lang: 'en',
      target_lang: 'de',
      entries: 'Acme,Acme\nno-comma\n"open,quote\n',
    });
    expect(reply).toMatchObject({ status: 400, body: { code: 40008, error: 'GLOSSARY_ENTRIES_INVALID' } });
    expect(reply.body.details.issues.map((issue: { line: number }) => issue.line)).toEqual([2, 3]);
    const dup = await call('POST', BASE, {
      name: 'dup',
      source_lang: 'en',
      target_lang: 'de',
      entries: 'a,b\na,c',
    });
    expect(dup.body.details.issues).toEqual([
      { line: 2, message: 'the source term "a" is already on line 1' },
    ]);
    expect((await call('GET', BASE)).body.data.glossaries).toEqual([]);
  });

  it('answers 413 GLOSSARY_TOO_LARGE beyond 5,000 entries', async () => {
    const entries = Array.from({ length: 5001 }, (_, i) => `t${i},u${i}`).join('\n');
    const reply = await call('POST', BASE, { name: 'big', source_lang: 'en', target_lang: 'de', entries });
    expect(reply).toMatchObject({
      status: 413,
      body: { code: 41304, error: 'GLOSSARY_TOO_LARGE', details: { limit: 5000, unit: 'entries' } },
    });
  });

  it('answers 400 for an unknown language and refuses a key that is not an admin', async () => {
    const reply = await call('POST', BASE, {
      name: 'x',
      source_lang: 'klingon',
      target_lang: 'de',
      entries: 'a,b',
    });
    expect(reply).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
    expect((await call('GET', BASE, undefined, gateway.keys.client)).status).toBe(403);
  });
});
