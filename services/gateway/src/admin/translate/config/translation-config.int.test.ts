import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../../test/openapi-contract.js';

interface Reply {
  readonly status: number;
  readonly body: {
    code: number;
    error?: string;
    data?: {
      target_languages: string[];
      enabled: boolean;
      human_only: string[];
      revision: number;
      updated_at: string;
    };
    details?: { issues: { path: string; message: string }[] };
  };
}

let gateway: TestGateway;
let contract: OpenApiContract;

beforeAll(async () => {
  gateway = await startTestGateway();
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await gateway?.close();
});

async function call(method: 'GET' | 'PUT', body?: unknown, key = gateway.keys.admin): Promise<Reply> {
  const res = await fetch(`${gateway.url}/api/admin/translate/config`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  // Every answer, success or failure, matches the served OpenAPI document.
  contract.check(method.toLowerCase(), '/api/admin/translate/config', reply.status, reply.body);
  return reply;
}

const paths = (reply: Reply) => reply.body.details?.issues.map((issue) => issue.path);

describe('GET/PUT /api/admin/translate/config', () => {
  it('GET shows the default row: English and zh-TW, enabled, revision 1', async () => {
    const { status, body } = await call('GET');
    expect(status).toBe(200);
    expect(body).toEqual({
      code: 0,
      data: {
        target_languages: ['en', 'zh-TW'],
        enabled: true,
        human_only: [],
        revision: 1,
        updated_at: expect.any(String),
      },
    });
  });

  it('PUT refuses an unknown code and duplicates after normalisation, naming each item', async () => {
    const reply = await call('PUT', { target_languages: ['en', 'klingon', 'EN', 'ja', 'ja-JP'] });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    expect(paths(reply)).toEqual([
      'body.target_languages.1',
      'body.target_languages.2',
      'body.target_languages.4',
    ]);
    expect(reply.body.details?.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('unsupported language "klingon"'),
      'en is already listed (item 0)',
      'ja is already listed (item 3)',
    ]);
  });

  it('PUT lists every problem at once: wrong types, an extra field, a wrong item type', async () => {
    const reply = await call('PUT', { target_languages: 'en', enabled: 'yes', revision: 9 });
    expect(reply.status).toBe(400);
    expect(paths(reply)?.sort()).toEqual(['body', 'body.enabled', 'body.target_languages']);

    const items = await call('PUT', { target_languages: ['en', 42], enabled: true });
    expect(items.status).toBe(400);
    expect(paths(items)).toEqual(['body.target_languages.1']);

    const tooMany = await call('PUT', { target_languages: Array.from({ length: 51 }, () => 'en') });
    expect(tooMany.status).toBe(400);
    expect(paths(tooMany)).toEqual(['body.target_languages']);

    expect((await call('PUT', {})).status).toBe(400);
    // Nothing was stored by any of them.
    expect((await call('GET')).body.data?.revision).toBe(1);
  });

  it('PUT stores normalised codes, bumps the revision, and GET shows it', async () => {
    const before = (await call('GET')).body.data;
    const reply = await call('PUT', { target_languages: ['JA', 'zh_tw', 'de-DE'], enabled: false });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      target_languages: ['ja', 'zh-TW', 'de'],
      enabled: false,
      human_only: [],
      revision: (before?.revision ?? 0) + 1,
      updated_at: expect.any(String),
    });
    expect((await call('GET')).body.data).toEqual(reply.body.data);

    // A field left out keeps its value; an empty list is allowed.
    const enabled = await call('PUT', { enabled: true });
    expect(enabled.body.data).toMatchObject({ target_languages: ['ja', 'zh-TW', 'de'], enabled: true });
    const none = await call('PUT', { target_languages: [] });
    expect(none.body.data).toMatchObject({ target_languages: [], enabled: true });
    expect(none.body.data?.revision).toBe((before?.revision ?? 0) + 3);
  });

  it('PUT stores human_only as codes, keeps the other fields, and refuses a bad item by its path', async () => {
    const bad = await call('PUT', { human_only: ['ja', 'klingon'] });
    expect(bad.status).toBe(400);
    expect(paths(bad)).toEqual(['body.human_only.1']);
    const before = (await call('GET')).body.data;
    const reply = await call('PUT', { human_only: ['JA', 'de-DE'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      human_only: ['ja', 'de'],
      target_languages: before?.target_languages,
      enabled: before?.enabled,
    });
    expect((await call('PUT', { human_only: [] })).body.data?.human_only).toEqual([]);
  });

  it('is for admins only: a client key gets 403, no key 401', async () => {
    expect((await call('GET', undefined, gateway.keys.client)).status).toBe(403);
    expect((await call('PUT', { enabled: false }, gateway.keys.client)).status).toBe(403);
    const anonymous = await fetch(`${gateway.url}/api/admin/translate/config`);
    expect(anonymous.status).toBe(401);
  });
});
