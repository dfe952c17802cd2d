/**
 * The OpenAI-compatible chat double, driven by the official `openai` SDK (the conformance client named in
 * ENGINES.md), so the double cannot drift from what a real client accepts, streams and raises.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';

import {
  countTokens,
  expectedAnswer,
  openAiFaults,
  startOpenAiDouble,
  type OpenAiDouble,
  type OpenAiDoubleOptions,
} from './openai.double.js';

const KEY = 'sk-test-upstream';
const MODEL = 'gpt-test-mini';

const sdk = (double: OpenAiDouble, apiKey = KEY) =>
  new OpenAI({ apiKey, baseURL: double.url, maxRetries: 0 });

/** What a promise rejects with; fails the test when it resolves. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );

async function withDouble(options: OpenAiDoubleOptions, run: (double: OpenAiDouble) => Promise<void>) {
  const double = await startOpenAiDouble(options);
  try {
    await run(double);
  } finally {
    await double.close();
  }
}

describe('OpenAI double', () => {
  let double: OpenAiDouble;
  let client: OpenAI;

  beforeAll(async () => {
    double = await startOpenAiDouble({ name: 'up-a' });
    client = sdk(double);
  });
  afterEach(() => double.reset());
  afterAll(() => double.close());

  it('answers with its name and the last user message reversed word-wise, counting words as tokens', async () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hello brave new world' },
    ];

    const completion = await client.chat.completions.create({ model: MODEL, messages });

    const content = 'up-a: world new brave Hello';
    expect(expectedAnswer('up-a', 'Hello brave new world')).toBe(content);
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 6, completion_tokens: 5, total_tokens: 11 },
    });
    expect(countTokens('Be brief.') + countTokens('Hello brave new world')).toBe(6);
    expect(double.requests).toHaveLength(1);
    expect(double.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: MODEL, messages },
      aborted: false,
      finished: true,
    });
    expect(double.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('keeps max_tokens words, its name included, and then finishes with "length"; n repeats the choice', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'one two three four' }],
      max_tokens: 3,
      n: 2,
    });

    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'up-a: four three' }, finish_reason: 'length' },
      { index: 1, message: { role: 'assistant', content: 'up-a: four three' }, finish_reason: 'length' },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  });

  it('streams a role chunk, one chunk per word, the finish reason, then usage when include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'a b c' }],
      stream: true,
      stream_options: { include_usage: true },
    });

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const deltas = chunks.map((c) => c.choices[0]?.delta);
    expect(deltas).toEqual([
      { role: 'assistant', content: '' },
      { content: 'up-a:' },
      { content: ' c' },
      { content: ' b' },
      { content: ' a' },
      {},
      undefined,
    ]);
    expect(deltas.map((d) => d?.content ?? '').join('')).toBe(expectedAnswer('up-a', 'a b c'));
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([
      null, null, null, null, null, 'stop', undefined,
    ]); // prettier-ignore
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === MODEL)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('puts server-sent events on the wire and ends with [DONE]; without include_usage no usage field', async () => {
    const reply = await fetch(`${double.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });

    const events = (await reply.text()).split('\n\n');
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.slice(-2)).toEqual(['data: [DONE]', '']);
    const payloads = events.slice(0, -2).map((e) => JSON.parse(e.replace(/^data: /, '')) as object);
    expect(payloads).toHaveLength(4);
    expect(payloads.every((p) => !('usage' in p))).toBe(true);
  });

  it('lists its models and answers 404 model_not_found for another model', async () => {
    const page = await client.models.list();
    const missing = await rejection(
      client.chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'hi' }] }),
    );

    expect(page.data).toEqual([
      { id: MODEL, object: 'model', created: expect.any(Number), owned_by: 'system' },
    ]);
    expect(await client.models.retrieve(MODEL)).toMatchObject({ id: MODEL, object: 'model' });
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
  });

  it('answers a wrong key with 401 invalid_api_key: AuthenticationError', async () => {
    const err = await rejection(sdk(double, 'sk-wrong').models.list());

    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: null,
      message: expect.stringContaining('Incorrect API key provided: sk-wrong.'),
    });
  });

  it('validates the body like OpenAI: 400 with the offending param: BadRequestError', async () => {
    const noMessages = await rejection(
      client.chat.completions.create({
        model: MODEL,
      } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    const badRole = await rejection(
      client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'robot', content: 'hi' }],
      } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    const zeroTokens = await rejection(
      client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 0,
      }),
    );

    expect(noMessages).toBeInstanceOf(OpenAI.BadRequestError);
    expect(noMessages).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'missing_required_parameter',
    });
    expect(badRole).toMatchObject({ status: 400, param: 'messages[0].role', code: 'invalid_value' });
    expect(zeroTokens).toMatchObject({ status: 400, param: 'max_tokens', code: 'integer_below_min_value' });
  });

  it('raises RateLimitError with retry-after and InternalServerError for the canned faults, in queue order', async () => {
    double.fail(openAiFaults.rateLimited(7), { path: '/v1/chat/completions' });
    double.fail(openAiFaults.serverError());
    const ask = () =>
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });

    const limited = await rejection(ask());
    const failed = await rejection(ask());
    const answered = await ask();

    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded' });
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('7');
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect(failed).toMatchObject({ status: 500, type: 'server_error' });
    expect(answered.choices[0]?.message.content).toBe('up-a: hi');
  });

  it('keeps a stream fault queued past plain requests and rejected streams, for the next stream', async () => {
    double.fail(openAiFaults.streamCut(0));
    const streamed = (model: string) =>
      client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true });

    const plain = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const rejected = await rejection(streamed('gpt-nope'));
    const stream = await streamed(MODEL);
    const contents: (string | null | undefined)[] = [];
    const cut = await rejection(
      (async () => {
        for await (const chunk of stream) contents.push(chunk.choices[0]?.delta.content);
      })(),
    );

    expect(plain.choices[0]?.finish_reason).toBe('stop');
    expect(rejected).toBeInstanceOf(OpenAI.NotFoundError);
    expect(contents).toEqual(['']);
    expect(cut).toMatchObject({ name: 'TypeError', message: 'terminated' });
  });

  it('drops the connection without an answer on destroy: APIConnectionError', async () => {
    double.fail({ type: 'destroy' });

    const err = await rejection(client.models.list());

    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(double.requests[0]).toMatchObject({ path: '/v1/models', aborted: false, finished: false });
  });

  it('sends an in-band error mid-stream: the SDK throws a plain APIError without status while iterating', async () => {
    double.fail(openAiFaults.streamError(2, 'The model crashed'));
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'one two three four' }],
      stream: true,
    });

    const contents: (string | null | undefined)[] = [];
    const err = await rejection(
      (async () => {
        for await (const chunk of stream) contents.push(chunk.choices[0]?.delta.content);
      })(),
    );

    expect(contents).toEqual(['', 'up-a:', ' four']);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).not.toBeInstanceOf(OpenAI.InternalServerError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(err).toMatchObject({
      status: undefined,
      message: 'The model crashed',
      type: 'server_error',
      code: null,
      param: null,
    });
  });

  it('cuts a stream mid-way: the SDK throws a transport error, not an APIError', async () => {
    double.fail(openAiFaults.streamCut(1));
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
    });

    const contents: (string | null | undefined)[] = [];
    const err = await rejection(
      (async () => {
        for await (const chunk of stream) contents.push(chunk.choices[0]?.delta.content);
      })(),
    );

    expect(contents).toEqual(['', 'up-a:']);
    expect(err).not.toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ name: 'TypeError', message: 'terminated' });
    expect(double.requests[0]).toMatchObject({ aborted: false, finished: false });
  });
});

describe('OpenAI double, client aborts', () => {
  it('paces a stream by chunkDelayMs and sees the client abort it mid-way', async () => {
    await withDouble({ chunkDelayMs: 40 }, async (double) => {
      const controller = new AbortController();
      const started = Date.now();
      const stream = await sdk(double).chat.completions.create(
        { model: MODEL, messages: [{ role: 'user', content: 'a b c d e f g h i j' }], stream: true },
        { signal: controller.signal },
      );

      const received: string[] = [];
      for await (const chunk of stream) {
        received.push(chunk.choices[0]?.delta.content ?? '');
        if (received.length === 3) controller.abort();
      }
      const aborted = await double.waitForAbort(2000);

      // An abort through the signal ends the SDK's iteration quietly, without throwing.
      expect(received).toEqual(['', 'openai-double:', ' j']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(80);
      expect(aborted).toBe(double.requests[0]);
      expect(aborted).toMatchObject({ aborted: true, finished: false });
    });
  });

  it('sees the client give up on a request that hangs', async () => {
    await withDouble({}, async (double) => {
      double.fail({ type: 'hang' });
      const controller = new AbortController();
      const pending = rejection(
        sdk(double).chat.completions.create(
          { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
          { signal: controller.signal },
        ),
      );
      setTimeout(() => controller.abort(), 50);

      const aborted = await double.waitForAbort(2000);

      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      expect(aborted).toMatchObject({ path: '/v1/chat/completions', aborted: true, finished: false });
    });
  });

  it('rejects waitForAbort when no client aborts in time', async () => {
    await withDouble({}, async (double) => {
      await sdk(double).models.list();

      await expect(double.waitForAbort(50)).rejects.toThrow(/no request .* was aborted/);
      expect(double.requests[0]).toMatchObject({ aborted: false, finished: true });
    });
  });
});
