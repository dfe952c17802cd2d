import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import {
  concretePath,
  errorName,
  operations,
  startTestGateway,
  type TestGateway,
} from '../../test/gateway-fixture.js';
import { committedOpenApi, OpenApiContract, type RawRequest } from '../../test/openapi-contract.js';

// Property: whatever a client sends to whichever route, the gateway answers with a status below 500
// in the documented shape, and a 2xx body matches the committed document (services/gateway/openapi.json).
// The one exception is a 503 naming a service this test has stopped (the translator and nli services,
// whose address is a port the test opened and closed, and the chat providers, of which it configures
// none), for a request the committed document says is valid: any other 5xx fails.
let gateway: TestGateway;
const contract = new OpenApiContract(committedOpenApi());

/** The services this test keeps down, by the error names that say so. */
const DOWN: Readonly<Record<string, 'translator' | 'nli' | 'chat'>> = {
  TRANSLATOR_UNAVAILABLE: 'translator',
  TRANSLATION_UNAVAILABLE: 'translator',
  NLI_UNAVAILABLE: 'nli',
  NLI_MODEL_NOT_READY: 'nli',
  CHAT_UNAVAILABLE: 'chat',
};

/** A port nothing listens on: taken from the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  const stopped = `http://127.0.0.1:${await closedPort()}`;
  gateway = await startTestGateway({
    RATE_LIMIT_PUBLIC: '0',
    RATE_LIMIT_PER_KEY: '0',
    BODY_LIMIT_KB: '16',
    TRANSLATOR_URL: stopped,
    NLI_URL: stopped,
    CHAT_PROVIDERS: '[]',
  });
});

afterAll(async () => {
  await gateway?.close();
});

const printable = (s: string) => s.replace(/[^\x20-\x7e]/g, '');

/** How many requests (FUZZ_RUNS) and from which seed (FUZZ_SEED, printed at the start to replay a failure). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Unicode a client can put in a path, a header or a body: the cases parsers and patterns trip on. */
const UNICODE = [
  '\ud800',
  '\udc00x',
  '\u202e\u2066evil\u2069',
  '😀',
  '𝟘𝟙',
  '\u0000',
  '\ufeff',
  '\u200b\u200d',
  'e\u0301\u0301\u0301',
  '\u3000全角',
  '\r\n',
];
const unicode = fc.oneof(
  fc.constantFrom(...UNICODE),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.constantFrom(...UNICODE), { maxLength: 8 }).map((parts) => parts.join('')),
);
/** A header value as a raw client sends it: UTF-8 bytes read as Latin-1, control characters dropped. */
const headerValue = (s: string) =>
  [...Buffer.from(s, 'utf8').toString('latin1')].filter((ch) => ch >= ' ' && ch !== '\x7f').join('');

/** Texts of `format: html | markdown` as a client may send them: fine, unclosed, deep, hostile. */
const MARKUP = [
  '<p>Good <b>night</b></p>',
  '<p translate="no">x',
  '<img alt="a dog">',
  '**a** [b](http://c) `d`',
  '<div>'.repeat(600),
  '<b>'.repeat(3000),
  `<p ${'a=1 '.repeat(2000)}>`,
  '>'.repeat(200),
  '<!--',
];

/** Fields of the DeepL- and LibreTranslate-compatible bodies, well and badly formed. */
function compatBody() {
  const keys = [gateway.keys.client, gateway.keys.admin, gateway.keys.revoked, 'nonsense', ''];
  return fc.record(
    {
      q: fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 5 })),
      text: fc.oneof(fc.string({ maxLength: 30 }), fc.array(unicode, { maxLength: 5 })),
      source: fc.constantFrom('auto', 'en', 'zh-Hans', 'zt', 'xx', ''),
      target: fc.constantFrom('es', 'zh-Hant', 'pb', 'auto', ''),
      target_lang: fc.constantFrom('ES', 'EN-GB', 'ZH-HANT', 'en-us', 'EN', 'XX', ''),
      source_lang: fc.constantFrom('EN', 'ZH', 'EN-US', 'ca', ''),
      type: fc.constantFrom('source', 'target', 'both'),
      format: fc.constantFrom('text', 'html', 'markdown'),
      api_key: fc.constantFrom(...keys),
      auth_key: fc.constantFrom(...keys),
      apiKey: fc.constantFrom(...keys),
      formality: fc.constantFrom('more', 'less', 'prefer_less', 'default', 'formal', ''),
      context: fc.oneof(unicode, fc.constant('c'.repeat(5001))),
      glossary_id: fc.constantFrom('00000000-0000-4000-8000-000000000000', 'nope', ''),
      tag_handling: fc.constantFrom('html', 'xml', 'markdown'),
      show_billed_characters: fc.constantFrom('1', '0', 'yes', true),
      alternatives: fc.constantFrom(0, 3, '3', 'x', -1),
      name: fc.string({ maxLength: 20 }),
      entries: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('a\tb\nc\td')),
      entries_format: fc.constantFrom('tsv', 'csv', 'xml'),
    },
    { requiredKeys: [] },
  );
}

/** An object as a form body: lists as repeated fields (`text=a&text=b`). */
const formText = (value: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(value).flatMap(([name, v]) =>
      (Array.isArray(v) ? v : [v]).map((one): [string, string] => [name, String(one)]),
    ),
  ).toString();

function requests(): fc.Arbitrary<RawRequest> {
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
      unicode.map((u) => concretePath(op.path, encodeURIComponent(u.replace(/[\ud800-\udfff]/g, '')) || 'x')),
      unicode.map((u) => `${concretePath(op.path)}/${escape(u)}`),
      fc.nat(100_000).map((n) => `${op.path.split('{')[0]}x${n}/%ZZ${n}`),
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
      `DeepL-Auth-Key ${gateway.keys.client}`,
      `DeepL-Auth-Key ${gateway.keys.admin}`,
      `deepl-auth-key ${gateway.keys.revoked}`,
      'DeepL-Auth-Key ',
    ),
    fc.string({ maxLength: 60 }).map(printable),
    unicode.map((u) => headerValue(`Bearer ${u}`)),
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
            fc.array(fc.constantFrom(...MARKUP), { maxLength: 130 }),
            fc.constantFrom(...MARKUP),
          ),
          format: fc.oneof(fc.constantFrom('text', 'html', 'markdown', 'rtf', ''), fc.integer()),
          formality: fc.oneof(
            fc.constantFrom('default', 'more', 'less', 'prefer_more', 'prefer_less', 'formal'),
            fc.integer(),
          ),
          glossary: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(''), fc.integer()),
          context: fc.oneof(fc.string({ maxLength: 60 }), fc.constant('c'.repeat(5001)), fc.constant(null)),
          source: fc.oneof(fc.constantFrom('zh-CN', 'auto', 'en', '', 'xx'), fc.integer()),
          target: fc.oneof(fc.constantFrom('en', 'auto', 'zz-ZZ', ''), fc.boolean()),
          role: fc.oneof(fc.constantFrom('client', 'admin', 'root'), fc.integer()),
          name: fc.oneof(fc.string({ maxLength: 120 }), fc.integer()),
          language: fc.oneof(fc.constantFrom('es', 'EN', 'zh_cn', 'xx', '', 'e'.repeat(40)), fc.integer()),
          module: fc.oneof(fc.constantFrom('catalog', 'Cat alog', ''), unicode, fc.integer()),
          entity_type: fc.oneof(fc.constantFrom('vendor', 'text', ''), unicode, fc.constant(null)),
          extra: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    compatBody().map((v) => JSON.stringify(v)),
    compatBody().map((v) => formText(v)),
    fc.constant('x'.repeat(20 * 1024)),
    unicode.map((u) =>
      JSON.stringify({ text: u, target: 'en', model: u, messages: [{ role: 'user', content: u }] }),
    ),
  );
  return fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'PURGE'),
    path,
    headers: fc
      .record(
        {
          authorization,
          'content-type': contentType,
          'x-request-id': fc.string({ maxLength: 200 }).map(printable),
          'x-language': fc.oneof(fc.string({ maxLength: 20 }).map(printable), unicode.map(headerValue)),
          'x-correlation-id': fc.oneof(unicode.map(headerValue), fc.constant('c'.repeat(8000))),
          'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), unicode.map(headerValue)),
          'user-agent': fc.constant('u'.repeat(6000)),
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

/** The gateway's /metrics, read the way a scraper on this machine reads it. */
const metricsText = async () => (await fetch(`${gateway.url}/metrics`)).text();

/** Heap in use after a full collection (gc exposed to this test only). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/** The stopped service a 503 answer names, if any. */
function stoppedServiceNamed(path: string, text: string): string | undefined {
  try {
    return DOWN[errorName(new URL(path, 'http://x').pathname, JSON.parse(text)) ?? ''];
  } catch {
    return undefined;
  }
}

const send = async (request: RawRequest) => {
  const res = await fetch(`${gateway.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
  });
  return { status: res.status, text: await res.text() };
};

/**
 * A 503 is accepted when it names a stopped service and the committed document says the request was
 * valid. A HEAD answer has no body: its GET twin is sent and must qualify. Returns what was found.
 */
async function serviceDown(
  request: RawRequest,
  text: string,
): Promise<{ service: string | undefined; valid: boolean }> {
  if (request.method === 'HEAD') {
    const twin = { ...request, method: 'GET' };
    const res = await send(twin);
    return res.status === 503 ? serviceDown(twin, res.text) : { service: undefined, valid: false };
  }
  return {
    service: stoppedServiceNamed(request.path, text),
    valid: contract.isValid(request, gateway.keys),
  };
}

/**
 * A 2xx body must match the committed document's schema for its operation (HEAD and OPTIONS have
 * none). Returns whether a body was checked.
 */
function checkSuccess(request: RawRequest, status: number, text: string): boolean {
  if (request.method === 'HEAD' || request.method === 'OPTIONS' || status === 204) return false;
  const matched = contract.operationOf(request.method, request.path);
  expect({ request: `${request.method} ${request.path}`, documented: matched !== undefined }).toEqual({
    request: `${request.method} ${request.path}`,
    documented: true,
  });
  if (matched) contract.check(matched.method, matched.template, status, JSON.parse(text));
  return true;
}

const LIBRE_PREFIXES = ['/translate', '/detect', '/languages', '/frontend/'];

/** A failure below 500 has the documented error shape (OpenAI's under /v1, DeepL's, LibreTranslate's). */
function checkFailureShape(request: RawRequest, status: number, text: string): void {
  if (request.method === 'HEAD' || status === 431 || request.path.startsWith('/docs')) return;
  const { pathname } = new URL(request.path, 'http://x');
  const shape = pathname.startsWith('/v1/')
    ? { error: { message: expect.any(String), type: expect.any(String), code: expect.any(String) } }
    : pathname.startsWith('/v2/')
      ? { message: expect.any(String), code: expect.any(String) }
      : LIBRE_PREFIXES.some((prefix) => pathname.startsWith(prefix))
        ? { error: expect.any(String), code: expect.any(String) }
        : { code: expect.any(Number), error: expect.any(String) };
  expect(JSON.parse(text)).toMatchObject(shape);
}

describe('the oracle of a valid request (the committed document)', () => {
  const translate = (headers: Record<string, string>, body: unknown): RawRequest => ({
    method: 'POST',
    path: '/api/v1/translate',
    headers,
    body: JSON.stringify(body),
  });
  const json = { 'content-type': 'application/json' };

  it('calls valid a request of the documented shape, with the key its route asks for', () => {
    expect(contract.isValid(translate(json, { text: 'hi', target: 'en' }), gateway.keys)).toBe(true);
    const admin = { authorization: `Bearer ${gateway.keys.admin}` };
    expect(
      contract.isValid(
        { method: 'GET', path: '/api/admin/nli/config', headers: admin, body: undefined },
        gateway.keys,
      ),
    ).toBe(true);
  });

  it('calls invalid a body, a media type, a key or a route the document does not allow', () => {
    expect(contract.isValid(translate(json, { text: 'hi' }), gateway.keys)).toBe(false);
    expect(contract.isValid(translate(json, { text: 'hi', target: 'en', extra: 1 }), gateway.keys)).toBe(
      false,
    );
    expect(
      contract.isValid(
        translate({ 'content-type': 'text/plain' }, { text: 'hi', target: 'en' }),
        gateway.keys,
      ),
    ).toBe(false);
    const client = { authorization: `Bearer ${gateway.keys.client}` };
    expect(
      contract.isValid(
        { method: 'GET', path: '/api/admin/nli/config', headers: client, body: undefined },
        gateway.keys,
      ),
    ).toBe(false);
    expect(
      contract.isValid(
        { method: 'GET', path: '/api/v1/translate/pairs?source=', headers: {}, body: undefined },
        gateway.keys,
      ),
    ).toBe(false);
    expect(
      contract.isValid(
        { method: 'GET', path: '/api/v1/nowhere', headers: {}, body: undefined },
        gateway.keys,
      ),
    ).toBe(false);
  });
});

describe('fuzzing every route with malformed requests', () => {
  it('answers no 5xx but the 503 of a valid request naming a stopped service, 2xx as documented; /metrics and the heap stay bounded', async () => {
    process.stdout.write(`fuzz: ${RUNS} requests, seed ${SEED} (replay with FUZZ_SEED=${SEED})\n`);
    const statuses = new Map<number, number>();
    let down = 0;
    let succeeded = 0;
    const heapBefore = heapAfterGc();
    await fc.assert(
      fc.asyncProperty(requests(), async (request) => {
        const { status, text } = await send(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 503) {
          const found = await serviceDown(request, text);
          expect({ request, status, ...found }).toEqual({
            request,
            status,
            service: expect.any(String),
            valid: true,
          });
          down += 1;
          if (request.method !== 'HEAD') checkFailureShape(request, status, text);
          return;
        }
        expect({ request, status, below500: status < 500 }).toEqual({ request, status, below500: true });
        if (status >= 200 && status < 300) {
          if (checkSuccess(request, status, text)) succeeded += 1;
        } else if (status >= 400) checkFailureShape(request, status, text);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    process.stdout.write(
      `fuzz: statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${succeeded} 2xx checked against the document; ${down} 503s of a stopped service\n`,
    );
    const rejected = [...statuses].filter(([s]) => s >= 400 && s < 500).reduce((n, [, c]) => n + c, 0);
    expect(rejected).toBeGreaterThanOrEqual(RUNS * 0.8);

    // Route labels come from templates or a fixed few, never from the raw path.
    const metrics = await metricsText();
    const routes = new Set([...metrics.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    const templates = new Set(operations(gateway.openapi).map((op) => op.path.replace(/\{(\w+)\}/g, ':$1')));
    const fixed = ['unmatched', '/docs', '/health', '/ready', '/metrics', '/openapi.json'];
    expect(
      [...routes].filter((route) => !templates.has(route as string) && !fixed.includes(route as string)),
    ).toEqual([]);
    expect(metrics.length).toBeLessThan(1_500_000);
    expect(heapAfterGc() - heapBefore).toBeLessThan(40 * 1024 * 1024);
  }, 900_000);
});
