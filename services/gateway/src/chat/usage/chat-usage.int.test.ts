import type { Server } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChatUsage as ChatUsageRow, connectDatabase, type Orm } from '@tp/db';
import { closeServer, createHttpApp, createLogger, createMetrics, finishHttpApp, listen } from '@tp/runtime';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { noRateLimits, type OpenApiDoc } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';
import { ApiKeyStore } from '../../auth/api-key.store.js';
import { BudgetStore } from '../../keys/budgets/budget.store.js';
import { mountRoutes } from '../../http/mount.js';
import { buildOpenApiDocument } from '../../http/openapi.js';
import type { AnyRoute } from '../../http/route.js';
import { chatUsageRoutes } from './chat-usage.routes.js';
import { ChatUsageStore, type ChatUsage } from './chat-usage.store.js';

// The usage store on a database of this file's own, and its admin route behind the gateway's own edge
// (auth, validation, error mapping). Every answer is checked against the OpenAPI document the route
// generates. The seeded rows get fixed ages so the windows below are exact.
let db: TestDatabase;
let orm: Orm;
let store: ChatUsageStore;
let contract: OpenApiContract;
let server: Server;
let baseUrl: string;
let keys: { admin: string; client: string };
let alpha: string;
let beta: string;
const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const noLimits = noRateLimits();

/** Records a completion, then dates it `age` ms back (the database stamps rows with its own now()). */
async function seed(usage: Omit<ChatUsage, 'totalTokens'>, age: number): Promise<void> {
  await store.record({ ...usage, totalTokens: usage.promptTokens + usage.completionTokens });
  await orm.em.fork().nativeUpdate(ChatUsageRow, { requestId: usage.requestId }, { createdAt: ago(age) });
}

const fast = { model: 'fast', upstreamModel: 'llama-3.1-8b-instant', provider: 'groq' };
const smart = { model: 'smart', upstreamModel: 'gpt-4.1', provider: 'openai' };

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
  store = new ChatUsageStore(orm);
  const apiKeys = new ApiKeyStore(orm);
  const [admin, client, a, b] = await Promise.all([
    apiKeys.create('admin', 'admin'),
    apiKeys.create('client', 'client'),
    apiKeys.create('client', 'alpha'),
    apiKeys.create('client', 'beta'),
  ]);
  keys = { admin: admin.key, client: client.key };
  alpha = a.id;
  beta = b.id;
  const base = { stream: false };
  await seed(
    { ...base, ...fast, keyId: alpha, requestId: 'r-1', promptTokens: 10, completionTokens: 20 },
    2 * HOUR,
  );
  await seed(
    { ...fast, keyId: alpha, requestId: 'r-2', promptTokens: 5, completionTokens: 15, stream: true },
    1 * HOUR,
  );
  await seed(
    { ...base, ...smart, keyId: alpha, requestId: 'r-3', promptTokens: 100, completionTokens: 200 },
    3 * HOUR,
  );
  await seed(
    { ...base, ...fast, keyId: beta, requestId: 'r-4', promptTokens: 40, completionTokens: 60 },
    1 * HOUR,
  );
  await seed(
    { ...base, ...fast, keyId: alpha, requestId: 'r-old', promptTokens: 1000, completionTokens: 1000 },
    40 * DAY,
  );
  // What a revoked key used still counts.
  await apiKeys.revoke(beta);

  const routes = chatUsageRoutes(store) as AnyRoute[];
  contract = new OpenApiContract(
    JSON.parse(JSON.stringify(buildOpenApiDocument(routes, 'test'))) as OpenApiDoc,
  );
  const app = createHttpApp({
    service: 'gateway',
    logger: createLogger('gateway', 'silent'),
    metrics: createMetrics('gateway'),
    checks: [],
  });
  mountRoutes(app, routes, {
    keys: apiKeys,
    budgets: new BudgetStore(orm),
    limits: noLimits,
    bodyLimitKb: 64,
  });
  finishHttpApp(app);
  server = await listen(app, 0, '127.0.0.1', 'PORT');
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  if (server) await closeServer(server);
  await orm?.close(true);
  await db?.drop();
});

const row = (
  keyId: string,
  keyName: string,
  model: string,
  requests: number,
  prompt: number,
  completion: number,
) => ({
  keyId,
  keyName,
  model,
  requests,
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
});

describe('ChatUsageStore', () => {
  it('sums every recorded completion per key and requested model, biggest total first', async () => {
    expect(await store.summary({})).toEqual([
      row(alpha, 'alpha', 'fast', 3, 1015, 1035),
      row(alpha, 'alpha', 'smart', 1, 100, 200),
      row(beta, 'beta', 'fast', 1, 40, 60),
    ]);
  });

  it('counts only completions from since on, which can change the order', async () => {
    expect(await store.summary({ since: ago(30 * DAY) })).toEqual([
      row(alpha, 'alpha', 'smart', 1, 100, 200),
      row(beta, 'beta', 'fast', 1, 40, 60),
      row(alpha, 'alpha', 'fast', 2, 15, 35),
    ]);
  });

  it('counts only completions before until', async () => {
    expect(await store.summary({ since: ago(30 * DAY), until: ago(90 * 60 * 1000) })).toEqual([
      row(alpha, 'alpha', 'smart', 1, 100, 200),
      row(alpha, 'alpha', 'fast', 1, 10, 20),
    ]);
  });

  it('includes a completion made exactly at since and excludes one made exactly at until', async () => {
    const at = ago(1 * HOUR);
    expect(await store.summary({ keyId: alpha, since: at })).toEqual([row(alpha, 'alpha', 'fast', 1, 5, 15)]);
    expect(await store.summary({ keyId: alpha, since: ago(90 * 60 * 1000), until: at })).toEqual([]);
  });

  it('counts only the given key', async () => {
    expect(await store.summary({ keyId: beta })).toEqual([row(beta, 'beta', 'fast', 1, 40, 60)]);
  });

  it('refuses usage of a key that does not exist', async () => {
    await expect(
      store.record({
        ...fast,
        keyId: '00000000-0000-4000-8000-000000000000',
        requestId: 'r-nokey',
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        stream: false,
      }),
    ).rejects.toThrow(/chat_usage_api_key_id_foreign/);
  });
});

interface UsageBody {
  readonly code: number;
  readonly error?: string;
  readonly message?: string;
  readonly details?: { issues: { path: string }[] };
  readonly data: {
    readonly since: string;
    readonly until: string;
    readonly rows: Record<string, unknown>[];
    readonly totals: Record<string, number>;
  };
}

async function getUsage(query: Record<string, string> = {}, key = keys.admin) {
  const path = '/api/admin/chat/usage';
  const res = await fetch(`${baseUrl}${path}?${new URLSearchParams(query).toString()}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as UsageBody;
  contract.check('get', path, res.status, body);
  return { status: res.status, body };
}

describe('GET /api/admin/chat/usage', () => {
  it('answers the last 30 days per key and model, with totals', async () => {
    const before = Date.now();
    const { status, body } = await getUsage();
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    const until = Date.parse(body.data.until);
    expect(until).toBeGreaterThanOrEqual(before);
    expect(until - Date.parse(body.data.since)).toBe(30 * DAY);
    expect(body.data.rows).toEqual([
      {
        key_id: alpha,
        key_name: 'alpha',
        model: 'smart',
        requests: 1,
        prompt_tokens: 100,
        completion_tokens: 200,
        total_tokens: 300,
      },
      {
        key_id: beta,
        key_name: 'beta',
        model: 'fast',
        requests: 1,
        prompt_tokens: 40,
        completion_tokens: 60,
        total_tokens: 100,
      },
      {
        key_id: alpha,
        key_name: 'alpha',
        model: 'fast',
        requests: 2,
        prompt_tokens: 15,
        completion_tokens: 35,
        total_tokens: 50,
      },
    ]);
    expect(body.data.totals).toEqual({
      requests: 4,
      prompt_tokens: 155,
      completion_tokens: 295,
      total_tokens: 450,
    });
  });

  it('narrows to the given window and key, echoing the window', async () => {
    const since = ago(50 * DAY).toISOString();
    const until = ago(90 * 60 * 1000).toISOString();
    const { status, body } = await getUsage({ since, until, key_id: alpha });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ since, until });
    expect(body.data.rows.map((r) => [r.model, r.requests, r.total_tokens])).toEqual([
      ['fast', 2, 2030],
      ['smart', 1, 300],
    ]);
    expect(body.data.totals).toMatchObject({ requests: 3, total_tokens: 2330 });
  });

  it('accepts date-times with an offset', async () => {
    const { status, body } = await getUsage({ since: '2020-01-01T08:00:00+08:00' });
    expect(status).toBe(200);
    expect(body.data.since).toBe('2020-01-01T00:00:00.000Z');
    expect(body.data.totals.requests).toBe(5);
  });

  it('answers an empty summary for a key without usage', async () => {
    const { body } = await getUsage({ key_id: '00000000-0000-4000-8000-000000000000' });
    expect(body.data.rows).toEqual([]);
    expect(body.data.totals).toEqual({
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
    });
  });

  it('is for admin keys only', async () => {
    const { status, body } = await getUsage({}, keys.client);
    expect(status).toBe(403);
    expect(body.error).toBe('FORBIDDEN');
  });

  it('refuses since after until with 400 VALIDATION_FAILED', async () => {
    const { status, body } = await getUsage({
      since: ago(1 * HOUR).toISOString(),
      until: ago(2 * HOUR).toISOString(),
    });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.details?.issues.map((i) => i.path)).toEqual(['query.since']);
  });

  it('refuses a since in the future when until defaults to now', async () => {
    const { status, body } = await getUsage({ since: new Date(Date.now() + DAY).toISOString() });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
  });

  it('refuses a malformed key_id, date-times that are not ISO 8601 and unknown parameters', async () => {
    const { status, body } = await getUsage({ key_id: 'alpha', until: 'yesterday', limit: '10' });
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.details?.issues.map((i) => i.path).sort()).toEqual(['query', 'query.key_id', 'query.until']);
  });

  it('is documented as an admin route that can fail validation', () => {
    const doc = JSON.parse(
      JSON.stringify(buildOpenApiDocument(chatUsageRoutes(store) as AnyRoute[], 'test')),
    ) as {
      paths: Record<string, Record<string, { 'x-access': string; responses: Record<string, unknown> }>>;
    };
    const operation = doc.paths['/api/admin/chat/usage']?.get;
    expect(operation?.['x-access']).toBe('admin');
    expect(Object.keys(operation?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403']),
    );
  });
});
