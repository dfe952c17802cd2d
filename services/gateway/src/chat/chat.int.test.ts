/**
 * POST /v1/chat/completions and GET /v1/models through the real gateway, driven by the official
 * `openai` client (the conformance client of ENGINES.md), with two OpenAI-compatible upstream doubles
 * as providers `a` and `b`, in that order.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';

import {
  countTokens,
  expectedAnswer,
  openAiFaults,
  startOpenAiDouble,
  type OpenAiDouble,
} from '@tp/test/doubles/openai.double';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

const MODEL = 'gpt-test-mini';
const COMPLETIONS = '/v1/chat/completions';
let a: OpenAiDouble;
let b: OpenAiDouble;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startOpenAiDouble({ name: 'up-a', apiKey: 'sk-a' }),
    startOpenAiDouble({ name: 'up-b', apiKey: 'sk-b', models: [MODEL, 'b-large'] }),
  ]);
  process.env.CHAT_TEST_KEY_A = 'sk-a';
  process.env.CHAT_TEST_KEY_B = 'sk-b';
  gateway = await startTestGateway({
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'a', base_url: a.url, api_key_env: 'CHAT_TEST_KEY_A', models: [MODEL], timeout_ms: 500 },
      { name: 'b', base_url: b.url, api_key_env: 'CHAT_TEST_KEY_B', models: [MODEL, 'b-large'] },
    ]),
    CHAT_MODEL_ALIASES: JSON.stringify({ smart: ['b/b-large', MODEL], 'only-a': 'a/gpt-test-mini' }),
    CHAT_GUARDRAIL: 'keyword',
  });
  client = sdk(gateway.keys.client);
});

afterEach(() => {
  a.reset();
  b.reset();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([a?.close(), b?.close()]);
});

function sdk(apiKey: string, url = gateway.url): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
}

const ask = (text: string) => [{ role: 'user' as const, content: text }];

/** What a promise rejects with; fails the test when it resolves. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );

const calls = (double: OpenAiDouble) => double.requests.filter((r) => r.path === COMPLETIONS);

describe('non-streamed completions', () => {
  it('answers in OpenAI shape from the first provider, with its usage', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'system', content: 'be brief' }, ...ask('hello brave new world')],
      temperature: 0.2,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: expectedAnswer('up-a', 'hello brave new world'),
    });
    expect(completion.usage).toEqual({
      prompt_tokens: countTokens('be brief hello brave new world'),
      completion_tokens: countTokens(expectedAnswer('up-a', 'hello brave new world')),
      total_tokens: 6 + 5,
    });
    // Parameters go through as sent; the provider's key, not the client's, goes upstream.
    const [sent] = calls(a);
    expect(sent?.body).toMatchObject({ model: MODEL, temperature: 0.2 });
    expect(sent?.headers.authorization).toBe('Bearer sk-a');
    expect(calls(b)).toHaveLength(0);
  });

  it('resolves an alias to its first target and lists models and aliases in GET /v1/models', async () => {
    const completion = await client.chat.completions.create({ model: 'smart', messages: ask('one two') });
    expect(completion.choices[0]?.message.content).toBe(expectedAnswer('up-b', 'one two'));
    expect(calls(b)[0]?.body).toMatchObject({ model: 'b-large' });

    const models = [];
    for await (const model of client.models.list()) models.push([model.id, model.owned_by]);
    expect(models).toEqual([
      [MODEL, 'a'],
      ['b-large', 'b'],
      ['smart', 'alias'],
      ['only-a', 'alias'],
    ]);
  });

  it.each([
    ['a 500', () => openAiFaults.serverError()],
    ['a 429', () => openAiFaults.rateLimited(7)],
    ['a 503', () => openAiFaults.overloaded()],
    ['a refused provider key (403)', () => openAiFaults.permissionDenied()],
    ['a dropped connection', () => ({ type: 'destroy' as const })],
    ['silence past timeout_ms', () => ({ type: 'hang' as const })],
  ])('falls back to the second provider after %s from the first', async (_label, fault) => {
    a.fail(fault(), { path: COMPLETIONS });
    const completion = await client.chat.completions.create({ model: MODEL, messages: ask('fall back') });
    expect(completion.choices[0]?.message.content).toBe(expectedAnswer('up-b', 'fall back'));
    expect(calls(a)).toHaveLength(1);
    expect(calls(b)).toHaveLength(1);
  });

  it('records tokens per API key in Postgres, visible to admins', async () => {
    const key = await gateway.store.create('client', 'usage test');
    await sdk(key.key).chat.completions.create({ model: MODEL, messages: ask('count these four words') });
    // Usage is written after the answer has gone out: poll for it.
    let rows: unknown[] = [];
    for (let i = 0; i < 50 && rows.length === 0; i += 1) {
      const res = await fetch(`${gateway.url}/api/admin/chat/usage?key_id=${key.id}`, {
        headers: { authorization: `Bearer ${gateway.keys.admin}` },
      });
      rows = ((await res.json()) as { data: { rows: unknown[] } }).data.rows;
      if (rows.length === 0) await sleep(50);
    }
    const completion = countTokens(expectedAnswer('up-a', 'count these four words'));
    expect(rows).toEqual([
      expect.objectContaining({ key_id: key.id, model: MODEL, requests: 1, total_tokens: 4 + completion }),
    ]);
  });
});

describe('streamed completions', () => {
  it('relays the chunks and [DONE], with the usage chunk only when include_usage asks for it', async () => {
    const withUsage = await client.chat.completions.create({
      model: MODEL,
      messages: ask('stream me please'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of withUsage) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(expectedAnswer('up-a', 'stream me please'));
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(countTokens(text));

    const plain = await client.chat.completions.create({
      model: MODEL,
      messages: ask('no usage'),
      stream: true,
    });
    const plainChunks = [];
    for await (const chunk of plain) plainChunks.push(chunk);
    expect(plainChunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    expect(plainChunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends the raw event stream with the SSE content type and a final data: [DONE]', async () => {
    const res = await fetch(`${gateway.url}${COMPLETIONS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.keys.client}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: ask('raw'), stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await res.text();
    expect(raw.startsWith('data: {')).toBe(true);
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it.each([
    ['a 503 before the stream', () => openAiFaults.overloaded()],
    ['an in-band error before the first chunk', () => openAiFaults.streamError(0)],
    ['a stream cut before the first chunk', () => openAiFaults.streamCut(0)],
  ])('falls back to the second provider on %s', async (_label, fault) => {
    a.fail(fault(), { path: COMPLETIONS });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask('go on'),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(expectedAnswer('up-b', 'go on'));
    expect(calls(b)).toHaveLength(1);
  });

  it('sends a failure after the first chunk in-band, and does not switch providers mid-answer', async () => {
    a.fail(openAiFaults.streamError(2, 'the model crashed'), { path: COMPLETIONS });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask('one two three four'),
      stream: true,
    });
    let text = '';
    const failure = await rejection(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).message).toBe('the model crashed');
    expect(text.length).toBeGreaterThan(0);
    expect(expectedAnswer('up-a', 'one two three four').startsWith(text)).toBe(true);
    expect(calls(b)).toHaveLength(0);
  });

  it('cancels the provider call when the client goes away mid-stream', async () => {
    const slow = await startOpenAiDouble({ name: 'slow', apiKey: 'sk-slow', chunkDelayMs: 200 });
    process.env.CHAT_TEST_KEY_SLOW = 'sk-slow';
    const slowGateway = await startTestGateway({
      CHAT_PROVIDERS: JSON.stringify([
        { name: 'slow', base_url: slow.url, api_key_env: 'CHAT_TEST_KEY_SLOW', models: [MODEL] },
      ]),
    });
    try {
      const controller = new AbortController();
      const stream = await sdk(slowGateway.keys.client, slowGateway.url).chat.completions.create(
        { model: MODEL, messages: ask('a long answer with many words to stream slowly'), stream: true },
        { signal: controller.signal },
      );
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) break; // leaving the loop aborts the SDK's request
      }
      controller.abort();
      const aborted = await slow.waitForAbort(3000);
      expect(aborted.path).toBe(COMPLETIONS);
      expect(aborted.finished).toBe(false);
    } finally {
      await slowGateway.close();
      await slow.close();
    }
  });
});

describe('errors, in OpenAI shape and as the SDK classes', () => {
  it('answers 401 without a key, and to an unknown key (AuthenticationError)', async () => {
    const res = await fetch(`${gateway.url}${COMPLETIONS}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: ask('hi') }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: {
        message: expect.any(String),
        type: 'authentication_error',
        param: null,
        code: 'api_key_missing',
      },
    });
    const err = await rejection(
      sdk('tp_unknown').chat.completions.create({ model: MODEL, messages: ask('hi') }),
    );
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(calls(a)).toHaveLength(0);
  });

  it('answers 404 model_not_found for an unknown model (NotFoundError)', async () => {
    const err = await rejection(
      client.chat.completions.create({ model: 'no-such-model', messages: ask('hi') }),
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('answers 400 naming the field for an invalid body (BadRequestError)', async () => {
    const err = await rejection(client.chat.completions.create({ model: MODEL, messages: [] }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
  });

  it.each([
    [400, OpenAI.BadRequestError, () => openAiFaults.contextLengthExceeded()],
    [
      404,
      OpenAI.NotFoundError,
      () => ({
        type: 'respond' as const,
        status: 404,
        body: {
          error: { message: 'gone', type: 'invalid_request_error', param: null, code: 'model_not_found' },
        },
      }),
    ],
    [
      409,
      OpenAI.ConflictError,
      () => ({
        type: 'respond' as const,
        status: 409,
        body: { error: { message: 'conflict', type: 'invalid_request_error', param: null, code: null } },
      }),
    ],
    [
      422,
      OpenAI.UnprocessableEntityError,
      () => ({
        type: 'respond' as const,
        status: 422,
        body: {
          error: { message: 'bad tool schema', type: 'invalid_request_error', param: 'tools', code: null },
        },
      }),
    ],
  ])(
    'passes on a provider %i about the request as it came, without trying the next',
    async (status, errorClass, fault) => {
      a.fail(fault(), { path: COMPLETIONS });
      const err = await rejection(client.chat.completions.create({ model: MODEL, messages: ask('hi') }));
      expect(err).toBeInstanceOf(errorClass);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
      expect(calls(b)).toHaveLength(0);
    },
  );

  it('answers 429 with the shortest Retry-After when every provider is rate limited (RateLimitError)', async () => {
    a.fail(openAiFaults.rateLimited(9), { path: COMPLETIONS });
    b.fail(openAiFaults.rateLimited(4), { path: COMPLETIONS });
    const err = await rejection(client.chat.completions.create({ model: MODEL, messages: ask('hi') }));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('4');
  });

  it('answers 502 when every provider fails (InternalServerError), for streams too', async () => {
    a.fail(openAiFaults.serverError(), { path: COMPLETIONS, times: 2 });
    b.fail(openAiFaults.serverError(), { path: COMPLETIONS, times: 2 });
    const once = await rejection(client.chat.completions.create({ model: MODEL, messages: ask('hi') }));
    expect(once).toBeInstanceOf(OpenAI.InternalServerError);
    expect((once as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const streamed = await rejection(
      client.chat.completions.create({ model: MODEL, messages: ask('hi'), stream: true }),
    );
    expect((streamed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  });

  it('blocks a user message the keyword guardrail flags (400 content_blocked) without calling a provider', async () => {
    const err = await rejection(
      client.chat.completions.create({ model: MODEL, messages: ask('you are a 傻逼, answer me') }),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_blocked');
    expect(calls(a)).toHaveLength(0);
  });

  it.each([
    [
      'a system message',
      [
        { role: 'system', content: 'you are a 傻逼' },
        { role: 'user', content: 'hi' },
      ],
    ],
    ['an input_text part', [{ role: 'user', content: [{ type: 'input_text', text: 'you are a 傻逼' }] }]],
    ['a tool result', [{ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '傻逼' }] }]],
    [
      'an assistant turn the client wrote',
      [
        { role: 'assistant', content: '傻逼' },
        { role: 'user', content: 'go on' },
      ],
    ],
    ['a name', [{ role: 'user', name: '傻逼', content: 'hello' }]],
  ])('blocks %s the guardrail flags, not only user text', async (_label, messages) => {
    const err = await rejection(
      client.chat.completions.create({ model: MODEL, messages: messages as never }),
    );
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_blocked');
    expect(calls(a)).toHaveLength(0);
  });

  it('answers 404 model_not_found for provider/<model> the provider does not list', async () => {
    const err = await rejection(
      client.chat.completions.create({ model: 'a/anything-else', messages: ask('hi') }),
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    expect(calls(a)).toHaveLength(0);
  });

  it('answers 400 in OpenAI shape to too many messages', async () => {
    const messages = Array.from({ length: 501 }, () => ({ role: 'user' as const, content: 'x' }));
    const err = await rejection(client.chat.completions.create({ model: MODEL, messages }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
  });

  it.each([
    ['off', 'lets a flagged message through', 200],
    ['keyword+nli', 'fails closed with 503 when NLI cannot answer', 503],
  ])('with CHAT_GUARDRAIL=%s %s', async (mode, _label, status) => {
    const other = await startTestGateway({
      CHAT_GUARDRAIL: mode,
      NLI_TIMEOUT_MS: '300',
      CHAT_PROVIDERS: JSON.stringify([
        { name: 'a', base_url: a.url, api_key_env: 'CHAT_TEST_KEY_A', models: [MODEL] },
      ]),
    });
    try {
      const text = mode === 'off' ? 'you are a 傻逼' : 'a perfectly clean question';
      const res = await fetch(`${other.url}${COMPLETIONS}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.keys.client}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: ask(text) }),
      });
      expect(res.status).toBe(status);
      if (status === 503) {
        expect(await res.json()).toMatchObject({ error: { code: 'nli_unavailable', type: 'server_error' } });
        expect(calls(a)).toHaveLength(0);
      } else {
        expect(calls(a)).toHaveLength(1);
      }
    } finally {
      await other.close();
    }
  });

  it('answers 503 with a clear message when no provider is configured, never an invented answer', async () => {
    const bare = await startTestGateway();
    try {
      const err = await rejection(
        sdk(bare.keys.client, bare.url).chat.completions.create({ model: MODEL, messages: ask('hi') }),
      );
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
      expect((err as Error).message).toMatch(/no chat provider is configured/);
    } finally {
      await bare.close();
    }
  });
});
