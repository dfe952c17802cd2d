import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

let gateway: TestGateway;
let corsGateway: TestGateway;

beforeAll(async () => {
  [gateway, corsGateway] = await Promise.all([
    startTestGateway({ BODY_LIMIT_KB: '4' }),
    startTestGateway({ CORS_ORIGINS: 'https://app.example.com' }),
  ]);
});

afterAll(async () => {
  await Promise.all([gateway?.close(), corsGateway?.close()]);
});

const admin = () => ({ authorization: `Bearer ${gateway.keys.admin}` });

async function send(path: string, init: RequestInit = {}) {
  const res = await fetch(`${gateway.url}${path}`, init);
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { res, status: res.status, body };
}

function postKey(body: string, headers: Record<string, string> = {}) {
  return send('/api/admin/keys', {
    method: 'POST',
    headers: { ...admin(), 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('the error envelope', () => {
  it('answers an unknown route with 404 NOT_FOUND in the envelope, with the request id', async () => {
    const { res, status, body } = await send('/api/v1/nothing-here');
    expect(status).toBe(404);
    expect(body).toEqual({
      code: 40401,
      error: 'NOT_FOUND',
      message: expect.stringContaining('/api/v1/nothing-here'),
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('answers a known path with the wrong method with 405 and an Allow header', async () => {
    const { res, status, body } = await send('/api/v1/translate', { method: 'DELETE' });
    expect(status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(body).toMatchObject({ code: 40501, error: 'METHOD_NOT_ALLOWED' });
  });

  it('names in a 405 what each allowed method does on the path, and where the method asked is taken', async () => {
    const client = { authorization: `Bearer ${gateway.keys.client}` };
    const write = await send('/api/v1/content/shop/product/p-1', { method: 'PATCH', headers: client });
    expect(write.status).toBe(405);
    expect(write.res.headers.get('allow')).toBe('POST, DELETE, GET, HEAD');
    expect(write.body?.message).toBe(
      'PATCH is not allowed on /api/v1/content/{module}/{type}/{id}; it takes POST (report changed content of one entity), DELETE (delete the content of one entity), GET (read one entity of a module, translated by x-language)',
    );
    expect(write.body?.details).toMatchObject({ allow: ['POST', 'DELETE', 'GET', 'HEAD'] });
    // A report sent to the read path learns where reports go.
    const read = await send('/api/v1/content/product/p-1', { method: 'POST', headers: client });
    expect(read.status).toBe(405);
    expect(read.body?.message).toContain('it takes GET (read one entity, translated by x-language)');
    expect(read.body?.message).toContain('POST is taken on /api/v1/content/{module}/{type}/{id}');
    expect(read.body?.details).toMatchObject({ elsewhere: ['/api/v1/content/{module}/{type}/{id}'] });
  });

  it('answers malformed JSON with 400 MALFORMED_JSON, never 500', async () => {
    const { status, body } = await postKey('{"role": "client",');
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40001, error: 'MALFORMED_JSON' });
  });

  it('answers a JSON scalar body with 400, not a crash', async () => {
    const { status, body } = await postKey('"client"');
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'MALFORMED_JSON' });
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const { status, body } = await postKey(JSON.stringify({ role: 'client', name: 'x'.repeat(8 * 1024) }));
    expect(status).toBe(413);
    expect(body).toMatchObject({ code: 41301, error: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const { status, body } = await postKey('role=client', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(status).toBe(415);
    expect(body).toMatchObject({ code: 41501, error: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers an unknown charset with 415', async () => {
    const { status } = await postKey('{"role":"client"}', {
      'content-type': 'application/json; charset=klingon',
    });
    expect(status).toBe(415);
  });

  it('lists every validation problem: unknown field, wrong type, missing field', async () => {
    const { status, body } = await postKey(JSON.stringify({ name: 42, colour: 'blue' }));
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    const paths = (body?.details as { issues: { path: string }[] }).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['body', 'body.name', 'body.role']);
  });

  it('answers a missing body where one is required with 400', async () => {
    const { status, body } = await send('/api/admin/keys', { method: 'POST', headers: admin() });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'VALIDATION_FAILED' });
  });

  it('answers an empty JSON body with 400 naming the body, even where every field is optional', async () => {
    // express.json alone reads zero bytes as `{}`, which this all-optional schema accepts (a 404 below).
    const path = `/api/admin/keys/${randomUUID()}`;
    const headers = { ...admin(), 'content-type': 'application/json' };
    const empty = await send(path, { method: 'PATCH', headers, body: '' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({
      error: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^body: /),
    });
    const object = await send(path, { method: 'PATCH', headers, body: '{}' });
    expect(object.status).toBe(404);
  });

  it('rejects a malformed path parameter with 400 naming it', async () => {
    const { status, body } = await send('/api/admin/keys/not-a-uuid', { method: 'DELETE', headers: admin() });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'VALIDATION_FAILED', message: expect.stringContaining('params.id') });
  });

  it('answers an undecodable URL with 400, not 500', async () => {
    const { status } = await send('/api/admin/keys/%E0%A4%A', { method: 'DELETE', headers: admin() });
    expect(status).toBe(400);
  });
});

describe('request ids', () => {
  it('echoes a well-formed incoming x-request-id', async () => {
    const { res } = await send('/api/v1/me', { headers: { 'x-request-id': 'client-id-123' } });
    expect(res.headers.get('x-request-id')).toBe('client-id-123');
  });

  it('replaces a malformed one with a generated id', async () => {
    const { res } = await send('/api/v1/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('CORS', () => {
  it('sends no CORS headers unless origins are configured', async () => {
    const res = await fetch(`${gateway.url}/api/v1/translate/languages`, {
      headers: { origin: 'https://app.example.com' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows a configured origin and answers its preflight', async () => {
    const res = await fetch(`${corsGateway.url}/api/v1/translate`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('lets a configured origin read the request id, Retry-After and Content-Language', async () => {
    const res = await fetch(`${corsGateway.url}/api/v1/translate/languages`, {
      headers: { origin: 'https://app.example.com' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-expose-headers')).toBe(
      'x-request-id,retry-after,content-language',
    );
  });

  it('does not allow an origin that is not configured', async () => {
    const res = await fetch(`${corsGateway.url}/api/v1/translate/languages`, {
      headers: { origin: 'https://evil.example.com' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('serves the document with every registered route', async () => {
    const doc = gateway.openapi;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      expect.arrayContaining([
        '/api/v1/translate',
        '/api/v1/translate/languages',
        '/api/v1/me',
        '/api/admin/keys',
        '/api/admin/keys/{id}',
        '/api/admin/translate/status',
      ]),
    );
  });

  it('serves the Swagger UI page', async () => {
    const res = await fetch(`${gateway.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger-ui');
  });
});
