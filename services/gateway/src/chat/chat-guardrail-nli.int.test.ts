/**
 * The chat guardrail in `keyword+nli` mode against the real nli service with the tiny NLI model
 * (docs/models.md: a text naming "kill" or "gun" scores high for violence). A message longer than
 * the nli service accepts in one call is checked in pieces, with at most CHAT_NLI_CONCURRENCY calls
 * of one request in flight, counted at the nli side by a pass-through proxy.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { startOpenAiDouble, type OpenAiDouble } from '@tp/test/doubles/openai.double';
import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

const MODEL = 'gpt-test-mini';
const CONCURRENCY = 2;
/** The nli service's own NLI_MAX_TEXT_CHARS default: one call takes at most this much text. */
const NLI_MAX = 2000;
/** Held at the proxy before forwarding, so calls the gateway sends together overlap there. */
const HOLD_MS = 30;

interface DetectCounter {
  readonly url: string;
  calls: number;
  inFlight: number;
  maxInFlight: number;
  /** Longest text one call carried, in characters. */
  longest: number;
  close(): Promise<void>;
}

/** Forwards every request to the nli service, counting the /detect calls in flight. */
async function countingProxy(target: string): Promise<DetectCounter> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on(
      'end',
      () => void forward(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks), res),
    );
  });
  const counter: DetectCounter = {
    url: '',
    calls: 0,
    inFlight: 0,
    maxInFlight: 0,
    longest: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  async function forward(
    method: string,
    path: string,
    headers: NodeJS.Dict<string | string[]>,
    body: Buffer,
    res: ServerResponse,
  ) {
    const detect = path === '/detect';
    if (detect) {
      counter.calls += 1;
      counter.inFlight += 1;
      counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
      counter.longest = Math.max(
        counter.longest,
        [...(JSON.parse(body.toString()) as { text: string }).text].length,
      );
      await sleep(HOLD_MS);
    }
    try {
      const answer = await fetch(`${target}${path}`, {
        method,
        headers: { 'content-type': String(headers['content-type'] ?? 'application/json') },
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    } finally {
      if (detect) counter.inFlight -= 1;
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(counter, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

let nli: TestNli;
let proxy: DetectCounter;
let upstream: OpenAiDouble;
let gateway: TestGateway;

beforeAll(async () => {
  nli = await startNliWithTinyModel();
  proxy = await countingProxy(nli.url);
  upstream = await startOpenAiDouble({ name: 'up', apiKey: 'sk-up' });
  process.env.CHAT_TEST_KEY_UP = 'sk-up';
  gateway = await startTestGateway({
    CHAT_GUARDRAIL: 'keyword+nli',
    NLI_URL: proxy.url,
    NLI_MAX_TEXT_CHARS: String(NLI_MAX),
    CHAT_NLI_CONCURRENCY: String(CONCURRENCY),
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'up', base_url: upstream.url, api_key_env: 'CHAT_TEST_KEY_UP', models: [MODEL] },
    ]),
  });
});

beforeEach(() => {
  proxy.calls = 0;
  proxy.maxInFlight = 0;
  proxy.longest = 0;
  upstream.reset();
});

afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await upstream?.close();
  await nli?.close();
});

/** Clean sentences, about `length` characters of them. */
const clean = (length: number) =>
  'I like green tea and quiet evenings at home. '.repeat(Math.ceil(length / 45)).slice(0, length);

async function chat(text: string) {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.client}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: text }] }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code?: string; message?: string } } };
}

const completions = () => upstream.requests.filter((r) => r.path === '/v1/chat/completions');

describe('chat guardrail keyword+nli on messages longer than one NLI call', () => {
  it('blocks a long message whose unsafe part is near the end with 400 content_blocked', async () => {
    const text = `${clean(4 * NLI_MAX)} They will kill him with a gun.`;
    const res = await chat(text);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('content_blocked');
    // By the NLI check, not the keyword terms.
    expect(res.body.error?.message).toContain('NLI check');
    expect(completions()).toHaveLength(0);
    // Checked in pieces, each within what the nli service accepts.
    expect(proxy.calls).toBeGreaterThan(1);
    expect(proxy.longest).toBeLessThanOrEqual(NLI_MAX);
  });

  it('passes a long clean message to the provider after checking all of it', async () => {
    const res = await chat(clean(5 * NLI_MAX));
    expect(res.status).toBe(200);
    expect(completions()).toHaveLength(1);
    expect(proxy.calls).toBeGreaterThanOrEqual(5);
    expect(proxy.longest).toBeLessThanOrEqual(NLI_MAX);
  });

  it(`has at most CHAT_NLI_CONCURRENCY (${CONCURRENCY}) NLI calls of one request in flight`, async () => {
    const res = await chat(clean(8 * NLI_MAX));
    expect(res.status).toBe(200);
    expect(proxy.calls).toBeGreaterThanOrEqual(8);
    // Held calls overlap, so the bound is reached, and never passed.
    expect(proxy.maxInFlight).toBe(CONCURRENCY);
  });
});
