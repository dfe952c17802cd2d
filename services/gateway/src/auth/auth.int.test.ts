import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorCode } from '@tp/runtime';

import {
  concretePath,
  errorName,
  operations,
  startTestGateway,
  type TestGateway,
} from '../../test/gateway-fixture.js';
import { openAiCode } from '../chat/openai-errors.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

async function call(method: string, path: string, authorization?: string) {
  const res = await fetch(`${gateway.url}${concretePath(path)}`, {
    method: method.toUpperCase(),
    headers: authorization === undefined ? {} : { authorization },
  });
  const body = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
  return { status: res.status, body };
}

/** The auth outcome alone: 401/403 are auth failures; anything else means auth let the request through. */
describe('authentication on every route of the served API', () => {
  const keyed = () => operations(gateway.openapi).filter((op) => op.access !== 'public');
  const cases = (): [string, string, (g: TestGateway) => string | undefined, number, string][] => [
    ['no Authorization header', 'API_KEY_MISSING', () => undefined, 401, ''],
    ['a Basic header', 'API_KEY_MALFORMED', () => 'Basic dXNlcjpwYXNz', 401, ''],
    ['"Bearer" with no key', 'API_KEY_MALFORMED', () => 'Bearer ', 401, ''],
    ['an unknown key', 'API_KEY_INVALID', () => `Bearer tp_${'A'.repeat(43)}`, 401, ''],
    ['a token of the wrong shape', 'API_KEY_INVALID', () => 'Bearer abc.def', 401, ''],
    ['a revoked key', 'API_KEY_REVOKED', (g) => `Bearer ${g.keys.revoked}`, 401, ''],
  ];

  it('covers at least one route of each keyed group', () => {
    const access = new Set(keyed().map((op) => op.access));
    expect([...access].sort()).toEqual(['admin', 'client']);
  });

  for (const [label, code, header, status] of cases()) {
    it(`answers ${status} ${code} to ${label} on every keyed route`, async () => {
      for (const op of keyed()) {
        const res = await call(op.method, op.path, header(gateway));
        expect({
          route: `${op.method} ${op.path}`,
          status: res.status,
          error: errorName(op.path, res.body),
        }).toEqual({
          route: `${op.method} ${op.path}`,
          status,
          // OpenAI's own code on /v1 routes (invalid_api_key for every bad key).
          error: op.path.startsWith('/v1/') ? openAiCode(code as ErrorCode).toUpperCase() : code,
        });
      }
    });
  }

  it('answers 403 FORBIDDEN to a client key on every admin route', async () => {
    for (const op of keyed().filter((o) => o.access === 'admin')) {
      const res = await call(op.method, op.path, `Bearer ${gateway.keys.client}`);
      expect({
        route: `${op.method} ${op.path}`,
        status: res.status,
        error: errorName(op.path, res.body),
      }).toEqual({
        route: `${op.method} ${op.path}`,
        status: 403,
        error: 'FORBIDDEN',
      });
    }
  });

  it('lets a client key through on every client route', async () => {
    for (const op of keyed().filter((o) => o.access === 'client')) {
      const res = await call(op.method, op.path, `Bearer ${gateway.keys.client}`);
      expect([401, 403]).not.toContain(res.status);
    }
  });

  it('lets an admin key through on every keyed route', async () => {
    for (const op of keyed()) {
      const res = await call(op.method, op.path, `Bearer ${gateway.keys.admin}`);
      expect({ route: `${op.method} ${op.path}`, denied: [401, 403].includes(res.status) }).toEqual({
        route: `${op.method} ${op.path}`,
        denied: false,
      });
    }
  });

  it('asks no key on public routes, and ignores a bad one there', async () => {
    for (const op of operations(gateway.openapi).filter((o) => o.access === 'public')) {
      for (const header of [undefined, 'Bearer nonsense', `Bearer ${gateway.keys.revoked}`]) {
        const res = await call(op.method, op.path, header);
        expect([401, 403]).not.toContain(res.status);
      }
    }
  });

  it('accepts the scheme name in any case', async () => {
    const res = await call('get', '/api/v1/me', `bearer ${gateway.keys.client}`);
    expect(res.status).toBe(200);
  });
});

describe('API keys through the admin API', () => {
  const admin = () => ({ authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' });

  it('creates a key that works at once and is shown only at creation', async () => {
    const created = await fetch(`${gateway.url}/api/admin/keys`, {
      method: 'POST',
      headers: admin(),
      body: JSON.stringify({ role: 'client', name: 'partner A' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string; key: string; role: string } };
    expect(data.key).toMatch(/^tp_[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${gateway.url}/api/v1/me`, { headers: { authorization: `Bearer ${data.key}` } });
    expect(await me.json()).toMatchObject({
      code: 0,
      data: { id: data.id, role: 'client', name: 'partner A' },
    });

    const list = (await (await fetch(`${gateway.url}/api/admin/keys`, { headers: admin() })).json()) as {
      data: { keys: Record<string, unknown>[] };
    };
    const listed = list.data.keys.find((k) => k.id === data.id);
    expect(listed).toMatchObject({ name: 'partner A', role: 'client', revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(data.key);
  });

  it('revokes a key so that its next request gets 401', async () => {
    const { key, id } = await gateway.store.create('client', 'to revoke');
    expect((await call('get', '/api/v1/me', `Bearer ${key}`)).status).toBe(200);
    const res = await fetch(`${gateway.url}/api/admin/keys/${id}`, { method: 'DELETE', headers: admin() });
    expect(res.status).toBe(200);
    expect(await call('get', '/api/v1/me', `Bearer ${key}`)).toMatchObject({
      status: 401,
      body: { error: 'API_KEY_REVOKED' },
    });
  });

  it('answers 404 when revoking a key that does not exist', async () => {
    const res = await fetch(`${gateway.url}/api/admin/keys/11111111-1111-4111-8111-111111111111`, {
      method: 'DELETE',
      headers: admin(),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 40401, error: 'NOT_FOUND' });
  });
});
