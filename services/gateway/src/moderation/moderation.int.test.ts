import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { closeServer, createHttpApp, createLogger, createMetrics, finishHttpApp, listen } from '@tp/runtime';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { noRateLimits, type OpenApiDoc } from '../../test/gateway-fixture.js';
import { OpenApiContract } from '../../test/openapi-contract.js';
import { ApiKeyStore } from '../auth/api-key.store.js';
import { BudgetStore } from '../keys/budgets/budget.store.js';
import { mountRoutes } from '../http/mount.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import type { AnyRoute } from '../http/route.js';
import type { NliDetect } from './moderate/moderate-text.js';
import { moderationRoutes } from './moderation.routes.js';

// The moderation routes behind the gateway's own edge (auth, body reading, validation, error mapping)
// on a database of this file's own. Two apps on one database stand for two gateway processes. Every
// answer is checked against the OpenAPI document the routes generate (status and body schema).
let db: TestDatabase;
let contract: OpenApiContract;
let orm: Orm;
let keys: { admin: string; client: string };
let first: TestApp;
let second: TestApp;
const REFRESH_MS = 200;

interface TestApp {
  readonly url: string;
  readonly server: Server;
}

/** The fields these tests read, from `{code, data}` or the error envelope. */
interface ResponseBody {
  readonly code: number;
  readonly error?: string;
  readonly details?: unknown;
  readonly data: {
    readonly flagged: boolean;
    readonly matches: unknown[];
    readonly nli?: unknown;
    readonly duration_ms: number;
    readonly id: string;
    readonly terms: unknown[];
  };
}

const noLimits = noRateLimits();

/** NLI stand-in: a text mentioning "veiled" is unsafe; "nli-down" makes it fail like a dead service. */
const nliDetect: NliDetect = async (text) => {
  if (text.includes('nli-down')) throw new Error('connect ECONNREFUSED 127.0.0.1:3005');
  return { is_safe: !text.includes('veiled'), risk_level: text.includes('veiled') ? 'high' : 'low' };
};

async function startApp(routes: AnyRoute[]): Promise<TestApp> {
  const app = createHttpApp({
    service: 'gateway',
    logger: createLogger('gateway', 'silent'),
    metrics: createMetrics('gateway'),
    checks: [],
  });
  mountRoutes(app, routes, {
    keys: new ApiKeyStore(orm),
    budgets: new BudgetStore(orm),
    limits: noLimits,
    bodyLimitKb: 512,
  });
  finishHttpApp(app);
  const server = await listen(app, 0, '127.0.0.1', 'PORT');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server };
}

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
  const store = new ApiKeyStore(orm);
  const [admin, client] = await Promise.all([
    store.create('admin', 'admin'),
    store.create('client', 'client'),
  ]);
  keys = { admin: admin.key, client: client.key };
  const routes = moderationRoutes({ orm, nliDetect, maxTextChars: 100 }) as AnyRoute[];
  contract = new OpenApiContract(
    JSON.parse(JSON.stringify(buildOpenApiDocument(routes, 'test'))) as OpenApiDoc,
  );
  first = await startApp(routes);
  second = await startApp(moderationRoutes({ orm, refreshIntervalMs: REFRESH_MS }) as AnyRoute[]);
});

afterAll(async () => {
  for (const app of [first, second]) if (app) await closeServer(app.server);
  await orm?.close(true);
  await db?.drop();
});

async function call(
  app: TestApp,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: ResponseBody }> {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body = (await res.json()) as ResponseBody;
  contract.check(method.toLowerCase(), path.replace(/\/[0-9a-f-]{36}$/, '/{id}'), res.status, body);
  return { status: res.status, body };
}

const moderate = (body: unknown, app = first, key = keys.client) =>
  call(app, 'POST', '/api/v1/moderate', { key, body });
const addTerm = (body: unknown, app = first) =>
  call(app, 'POST', '/api/admin/moderation/terms', { key: keys.admin, body });

describe('POST /api/v1/moderate', () => {
  it('flags list terms with spans into the text as sent', async () => {
    const text = '你这个傻逼 and ｆｕ\u200bｃｋ';
    const { status, body } = await moderate({ text });
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.data).toMatchObject({
      flagged: true,
      mode: 'keyword',
      matches: [
        { term: '傻逼', start: 3, end: 5, text: '傻逼', language: 'zh', source: 'list' },
        { term: 'fuck', start: 10, end: 15, text: 'ｆｕ\u200bｃｋ', language: 'en', source: 'list' },
      ],
    });
    expect(body.data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(body.data.nli).toBeUndefined();
  });

  it('answers flagged: false for clean text', async () => {
    const { status, body } = await moderate({ text: 'A classic day in Scunthorpe' });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ flagged: false, matches: [] });
  });

  it('needs an API key', async () => {
    const { status, body } = await call(first, 'POST', '/api/v1/moderate', { body: { text: 'x' } });
    expect(status).toBe(401);
    expect(body.error).toBe('API_KEY_MISSING');
  });

  it('refuses unknown fields, empty text and bad languages, listing every problem', async () => {
    const { status, body } = await moderate({
      text: '',
      mode: 'semantic',
      languages: ['not a tag'],
      extra: 1,
    });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
    const paths = (body.details as { issues: { path: string }[] }).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['body', 'body.languages.0', 'body.mode', 'body.text']);
  });

  it('refuses text over the maximum with 413 TEXT_TOO_LONG, counting characters not UTF-16 units', async () => {
    expect((await moderate({ text: '😀'.repeat(100) })).status).toBe(200);
    const { status, body } = await moderate({ text: 'a'.repeat(101) });
    expect(status).toBe(413);
    expect(body).toMatchObject({ error: 'TEXT_TOO_LONG', details: { length: 101, max: 100 } });
  });

  it('in hybrid mode asks NLI about clean texts only', async () => {
    const veiled = await moderate({ text: 'a veiled threat', mode: 'hybrid' });
    expect(veiled.body.data).toMatchObject({ flagged: true, matches: [], nli: { is_safe: false } });
    const flagged = await moderate({ text: 'veiled shit', mode: 'hybrid' });
    expect(flagged.body.data).toMatchObject({ flagged: true, matches: [{ term: 'shit' }] });
    expect(flagged.body.data.nli).toBeUndefined();
  });

  it('answers 503 NLI_UNAVAILABLE in hybrid mode when NLI is down or not wired', async () => {
    const down = await moderate({ text: 'nli-down', mode: 'hybrid' });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ error: 'NLI_UNAVAILABLE', details: { dependency: 'nli' } });
    const unwired = await moderate({ text: 'hello', mode: 'hybrid' }, second);
    expect(unwired.status).toBe(503);
    expect(unwired.body.error).toBe('NLI_UNAVAILABLE');
    // Keyword mode does not need NLI.
    expect((await moderate({ text: 'nli-down' })).status).toBe(200);
  });
});

describe('admin moderation terms', () => {
  it('are for admin keys only', async () => {
    const { status } = await call(first, 'GET', '/api/admin/moderation/terms', { key: keys.client });
    expect(status).toBe(403);
  });

  it('add a custom term that applies to the next call, and list it', async () => {
    expect((await moderate({ text: 'you zorglub' })).body.data.flagged).toBe(false);
    const created = await addTerm({ term: 'Zorglub', kind: 'block', language: 'fr' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ term: 'Zorglub', kind: 'block', language: 'fr' });
    const { body } = await moderate({ text: 'you ZORG\u200bLUB' });
    expect(body.data.matches).toEqual([
      { term: 'Zorglub', start: 4, end: 12, text: 'ZORG\u200bLUB', language: 'fr', source: 'custom' },
    ]);
    const list = await call(first, 'GET', '/api/admin/moderation/terms', { key: keys.admin });
    expect(list.body.data.terms).toEqual([
      expect.objectContaining({ id: created.body.data.id, term: 'Zorglub' }),
    ]);
  });

  it('refuse a term that normalises like one of the same kind with 409 CONFLICT', async () => {
    await addTerm({ term: 'frobnicate', kind: 'block' });
    const { status, body } = await addTerm({ term: 'ＦＲＯＢＮ1ＣＡＴＥ', kind: 'block' });
    expect(status).toBe(409);
    expect(body).toMatchObject({
      error: 'CONFLICT',
      code: 40902,
      details: { existing: { term: 'frobnicate' } },
    });
    // The same phrase may be allowed, though: kinds are separate lists.
    expect((await addTerm({ term: 'frobnicate', kind: 'allow' })).status).toBe(201);
  });

  it('refuse a term with nothing to match after normalisation', async () => {
    const { status, body } = await addTerm({ term: '\u200b\u200b', kind: 'block' });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
  });

  it('let an allowed phrase clear the list terms inside it', async () => {
    expect((await moderate({ text: 'Dick Van Dyke sings' })).body.data.flagged).toBe(true);
    await addTerm({ term: 'dick van dyke', kind: 'allow' });
    expect((await moderate({ text: 'Dick Van Dyke sings' })).body.data.flagged).toBe(false);
    expect((await moderate({ text: 'Dick Van Dyke is a dick' })).body.data.matches).toEqual([
      expect.objectContaining({ term: 'dick', start: 19, end: 23 }),
    ]);
  });

  it('reach another gateway process once its refresh interval has passed, not before', async () => {
    await moderate({ text: 'warm up' }, second);
    // Line up the other process's interval with the clock: once an interval has passed, a call makes
    // it check, so its next check is due no sooner than REFRESH_MS after `started`. (Without this, its
    // last check could have been any time in the past interval, and the term could show up at once.)
    await sleep(REFRESH_MS + 20);
    const started = performance.now();
    await moderate({ text: 'check now' }, second);
    await sleep(20); // let that check finish before the change, should it outlast the call's 50 ms wait
    await addTerm({ term: 'quuxword', kind: 'block' });
    // The other process rebuilds on a call after its interval; poll as a client would see it. The
    // deadline is generous: on a loaded CI machine each poll can take hundreds of milliseconds.
    let flagged = false;
    while (!flagged && performance.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      flagged = (await moderate({ text: 'a quuxword here' }, second)).body.data.flagged;
    }
    expect(flagged).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(REFRESH_MS - 5);
  });

  it('delete a term (404 the second time), which stops matching at once', async () => {
    const created = await addTerm({ term: 'deleteme', kind: 'block' });
    expect((await moderate({ text: 'deleteme' })).body.data.flagged).toBe(true);
    const path = `/api/admin/moderation/terms/${created.body.data.id}`;
    const removed = await call(first, 'DELETE', path, { key: keys.admin });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ term: 'deleteme' });
    expect((await moderate({ text: 'deleteme' })).body.data.flagged).toBe(false);
    const again = await call(first, 'DELETE', path, { key: keys.admin });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('NOT_FOUND');
  });
});

describe('the OpenAPI document of the moderation routes', () => {
  it('documents each route with its access level and its own failures', () => {
    // As a client reads it: plain JSON.
    const doc = JSON.parse(
      JSON.stringify(buildOpenApiDocument(moderationRoutes({ orm }) as AnyRoute[], 'test')),
    ) as {
      paths: Record<string, Record<string, { 'x-access': string; responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/admin/moderation/terms',
      '/api/admin/moderation/terms/{id}',
      '/api/v1/moderate',
    ]);
    expect(doc.paths['/api/v1/moderate']?.post?.['x-access']).toBe('client');
    expect(Object.keys(doc.paths['/api/v1/moderate']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '413', '503']),
    );
    expect(doc.paths['/api/admin/moderation/terms']?.post?.['x-access']).toBe('admin');
    expect(Object.keys(doc.paths['/api/admin/moderation/terms']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/api/admin/moderation/terms/{id}']?.delete?.responses ?? {})).toContain(
      '404',
    );
  });
});
