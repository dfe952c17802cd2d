import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import { concretePath, operations, startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// Property: whatever a client sends to whichever route, the gateway answers with a status below 500
// in the documented envelope. The translator and nli services are down here, so the only 5xx allowed
// are their 503 TRANSLATOR_UNAVAILABLE / NLI_UNAVAILABLE, for a request that was in fact valid (rare
// among generated ones; counted and bounded).
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ RATE_LIMIT_PUBLIC: '0', RATE_LIMIT_PER_KEY: '0', BODY_LIMIT_KB: '16' });
});

afterAll(async () => {
  await gateway?.close();
});

const printable = (s: string) => s.replace(/[^\x20-\x7e]/g, '');

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

function requests(): fc.Arbitrary<FuzzRequest> {
  const ops = operations(gateway.openapi);
  const junk = fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '..',
    '//',
    '%00',
    ';',
    '?a=%',
    '#x',
    '\u00e9',
    '%2F..%2F',
  );
  const path = fc.constantFrom(...ops).chain((op) =>
    fc.oneof(
      fc.constant(concretePath(op.path)),
      fc.string({ maxLength: 40 }).map((v) => concretePath(op.path, encodeURIComponent(v) || 'x')),
      fc
        .tuple(junk, fc.string({ maxLength: 10 }))
        .map(([j, s]) => `${concretePath(op.path)}${j}${encodeURIComponent(s)}`),
      fc.constant(`${concretePath(op.path)}?unknown=1&text=`),
    ),
  );
  const authorization = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Basic Zm9vOmJhcg==',
      'bearer tp_short',
      `Bearer tp_${'x'.repeat(43)}`,
    ),
    fc.constantFrom(
      `Bearer ${gateway.keys.client}`,
      `Bearer ${gateway.keys.admin}`,
      `Bearer ${gateway.keys.revoked}`,
    ),
    fc.string({ maxLength: 60 }).map(printable),
  );
  const contentType = fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=bogus',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
  );
  const body = fc.oneof(
    fc.constant(undefined),
    fc.json({ maxDepth: 3 }),
    fc.anything({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'undefined'),
    fc.string({ maxLength: 200 }),
    fc.constantFrom('{', '{"text":', '[1,2', 'null', 'true', '""', '{"text": "\\ud800"}', '\u0000'),
    fc
      .record(
        {
          text: fc.oneof(
            fc.string({ maxLength: 30 }),
            fc.integer(),
            fc.constant(null),
            fc.array(fc.string()),
          ),
          source: fc.oneof(fc.constantFrom('zh-CN', 'auto', 'en', '', 'xx'), fc.integer()),
          target: fc.oneof(fc.constantFrom('en', 'auto', 'zz-ZZ', ''), fc.boolean()),
          role: fc.oneof(fc.constantFrom('client', 'admin', 'root'), fc.integer()),
          name: fc.oneof(fc.string({ maxLength: 120 }), fc.integer()),
          extra: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc.constant('x'.repeat(20 * 1024)),
  );
  return fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
    path,
    headers: fc
      .record(
        {
          authorization,
          'content-type': contentType,
          'x-request-id': fc.string({ maxLength: 200 }).map(printable),
          'x-language': fc.string({ maxLength: 20 }).map(printable),
        },
        { requiredKeys: [] },
      )
      .map(
        (h) =>
          Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
      ),
    body,
  });
}

describe('fuzzing every route with malformed requests', () => {
  it('never answers 5xx to 1,200 generated requests (except a valid request to a service that is down)', async () => {
    const statuses = new Map<number, number>();
    let translatorDown = 0;
    await fc.assert(
      fc.asyncProperty(requests(), async (request) => {
        const res = await fetch(`${gateway.url}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.method === 'GET' ? undefined : request.body,
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503 && /TRANSLATOR_UNAVAILABLE|NLI_UNAVAILABLE|chat_unavailable/.test(text)) {
          translatorDown += 1;
          return;
        }
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400 && !request.path.startsWith('/docs')) {
          const shape = new URL(request.path, 'http://x').pathname.startsWith('/v1/')
            ? { error: { message: expect.any(String), type: expect.any(String), code: expect.any(String) } }
            : { code: expect.any(Number), error: expect.any(String) };
          expect(JSON.parse(text)).toMatchObject(shape);
        }
      }),
      { numRuns: 1200, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    const rejected = [...statuses].filter(([s]) => s >= 400 && s < 500).reduce((n, [, c]) => n + c, 0);
    expect(rejected).toBeGreaterThanOrEqual(1000);
    expect(translatorDown).toBeLessThan(50);
  });
});
