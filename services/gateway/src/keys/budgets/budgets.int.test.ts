/**
 * Per-key budgets through the real gateway on real Postgres, with the OpenAI double as the provider and
 * the official `openai` client: limits set by an admin, enforced under concurrency, shown by /me.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';

import { openAiFaults, startOpenAiDouble, type OpenAiDouble } from '@tp/test/doubles/openai.double';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';

const MODEL = 'gpt-test-mini';
let upstream: OpenAiDouble;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startOpenAiDouble({ apiKey: 'sk-budget' });
  process.env.CHAT_BUDGET_TEST_KEY = 'sk-budget';
  gateway = await startTestGateway({
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'a', base_url: upstream.url, api_key_env: 'CHAT_BUDGET_TEST_KEY', models: [MODEL] },
    ]),
    CHAT_GUARDRAIL: 'off',
  });
});

afterEach(() => upstream.reset());

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface KeyAnswer {
  readonly id: string;
  readonly key: string;
  readonly requests_per_day: number | null;
  readonly tokens_per_day: number | null;
  readonly tokens_per_month: number | null;
}

async function admin(method: string, path: string, body?: object): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function newKey(limits: object): Promise<KeyAnswer> {
  const res = await admin('POST', '/api/admin/keys', { role: 'client', ...limits });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: KeyAnswer }).data;
}

const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

const ask = (client: OpenAI, text = 'hello there') =>
  client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: text }] });

async function me(key: string): Promise<Response> {
  return fetch(`${gateway.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
}

interface Budget {
  readonly limit: number | null;
  readonly used: number;
  readonly remaining: number | null;
  readonly resets_at: string;
}
type Budgets = Record<'requests_per_day' | 'tokens_per_day' | 'tokens_per_month', Budget>;

async function budgets(key: string): Promise<Budgets> {
  const res = await me(key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { budgets: Budgets } }).data.budgets;
}

/**
 * The budgets once the tokens of finished completions are settled: settling follows the answer, so a
 * /me sent right after it may still see the reservation.
 */
async function settled(key: string, done: (b: Budgets) => boolean): Promise<Budgets> {
  for (let tries = 0; ; tries += 1) {
    const now = await budgets(key);
    if (done(now) || tries === 200) return now;
    await sleep(50);
  }
}

const completionCalls = () => upstream.requests.filter((r) => r.path === '/v1/chat/completions').length;

describe('requests per day', () => {
  it('serves exactly 5 of 20 parallel requests on a budget of 5; the rest get insufficient_quota', async () => {
    const { key } = await newKey({ requests_per_day: 5 });
    const client = sdk(key);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.models.list()));
    const served = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(served).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const err of refused) {
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect((err as InstanceType<typeof OpenAI.RateLimitError>).error).toMatchObject({
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        param: null,
      });
    }
  });

  it('answers /api routes with the envelope, code QUOTA_EXCEEDED and Retry-After until midnight UTC', async () => {
    const { key } = await newKey({ requests_per_day: 1 });
    const first = await budgets(key);
    expect(first.requests_per_day).toMatchObject({ limit: 1, used: 1, remaining: 0 });
    const spent = await me(key);
    expect(spent.status).toBe(429);
    const body = (await spent.json()) as { code: number; error: string; details: { budget: string } };
    expect(body).toMatchObject({
      code: 42903,
      error: 'QUOTA_EXCEEDED',
      details: { budget: 'requests_per_day' },
    });
    const wait = Number(spent.headers.get('retry-after'));
    const untilMidnight = (Date.parse(first.requests_per_day.resets_at) - Date.now()) / 1000;
    expect(wait).toBeGreaterThan(0);
    expect(Math.abs(wait - untilMidnight)).toBeLessThan(5);
  });

  it('does not count requests of a key without a limit, and a raised limit serves again', async () => {
    const { id, key } = await newKey({});
    await budgets(key);
    expect((await budgets(key)).requests_per_day).toMatchObject({ limit: null, used: 0, remaining: null });
    const res = await admin('PATCH', `/api/admin/keys/${id}`, { requests_per_day: 0 });
    expect(((await res.json()) as { data: KeyAnswer }).data.requests_per_day).toBe(0);
    expect((await me(key)).status).toBe(429);
    await admin('PATCH', `/api/admin/keys/${id}`, { requests_per_day: null });
    expect((await me(key)).status).toBe(200);
  });
});

describe('chat tokens', () => {
  it('charges the usage of plain and streamed completions, and /me shows what is left', async () => {
    const { key } = await newKey({ tokens_per_day: 10_000, tokens_per_month: 20_000 });
    const client = sdk(key);
    const plain = await ask(client);
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'a streamed hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = 0;
    for await (const chunk of stream) streamed = chunk.usage?.total_tokens ?? streamed;
    const used = (plain.usage?.total_tokens ?? 0) + streamed;
    expect(streamed).toBeGreaterThan(0);
    const left = await settled(key, (b) => b.tokens_per_day.used === used);
    expect(left.tokens_per_day).toMatchObject({ limit: 10_000, used, remaining: 10_000 - used });
    expect(left.tokens_per_month).toMatchObject({ limit: 20_000, used, remaining: 20_000 - used });
  });

  it('refuses before the provider is called once the day is spent, and a request with budget left may overrun it', async () => {
    const { key } = await newKey({ tokens_per_day: 1 });
    const client = sdk(key);
    const first = await ask(client, 'one two three four five six');
    // It started with budget left, so it was served in full: it overran by its own usage.
    expect(first.usage?.total_tokens).toBeGreaterThan(1);
    // The usage is charged after the answer: wait for it before reading what is left.
    const charged = await settled(key, (b) => b.tokens_per_day.used === first.usage?.total_tokens);
    expect(charged.tokens_per_day).toMatchObject({ used: first.usage?.total_tokens, remaining: 0 });
    const calls = completionCalls();
    const refused = await ask(client).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');
    expect(completionCalls()).toBe(calls);
  });

  it('lets at most 5 of 20 parallel completions reach the provider on a budget of 5 tokens', async () => {
    const { key } = await newKey({ tokens_per_month: 5 });
    const client = sdk(key);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => ask(client, 'hi')));
    const served = results.filter((r) => r.status === 'fulfilled').length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(5);
    expect(completionCalls()).toBe(served);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('insufficient_quota');
    }
  });

  it('releases the reservation of a completion the provider failed', async () => {
    const { key } = await newKey({ tokens_per_day: 1000 });
    upstream.fail(openAiFaults.serverError(), { path: '/v1/chat/completions' });
    const failed = await ask(sdk(key)).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    const after = await settled(key, (b) => b.tokens_per_day.used === 0);
    expect(after.tokens_per_day).toMatchObject({ used: 0, remaining: 1000 });
  });
});

describe('admin keys API', () => {
  it('sets limits on create, changes only the fields sent, and refuses bad values', async () => {
    const created = await newKey({ requests_per_day: 100, tokens_per_month: 5000 });
    expect(created).toMatchObject({ requests_per_day: 100, tokens_per_day: null, tokens_per_month: 5000 });
    const patched = await admin('PATCH', `/api/admin/keys/${created.id}`, { tokens_per_day: 70 });
    expect(((await patched.json()) as { data: KeyAnswer }).data).toMatchObject({
      requests_per_day: 100,
      tokens_per_day: 70,
      tokens_per_month: 5000,
    });
    for (const bad of [
      { requests_per_day: -1 },
      { tokens_per_day: 1.5 },
      { tokens_per_month: '9' },
      { other: 1 },
    ]) {
      const res = await admin('PATCH', `/api/admin/keys/${created.id}`, bad);
      expect(res.status).toBe(400);
    }
    const missing = await admin('PATCH', `/api/admin/keys/${crypto.randomUUID()}`, { tokens_per_day: 1 });
    expect(missing.status).toBe(404);
    const client = await fetch(`${gateway.url}/api/admin/keys/${created.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: '{"tokens_per_day":null}',
    });
    expect(client.status).toBe(403);
  });
});
