/**
 * Streams a client cuts short or reads too slowly, and usage writes that fail: the real gateway, an
 * OpenAI double as the provider, real Postgres (the usage table renamed away to make writes fail).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChatUsage, connectDatabase, type Orm } from '@tp/db';

import { startOpenAiDouble, type OpenAiDouble } from '@tp/test/doubles/openai.double';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { estimatedTokens } from './usage/record-usage.js';

const MODEL = 'gpt-test-mini';
let slow: OpenAiDouble;
let fast: OpenAiDouble;
let gateway: TestGateway;
let orm: Orm;
const sockets: Socket[] = [];

beforeAll(async () => {
  [slow, fast] = await Promise.all([
    startOpenAiDouble({ name: 'slow', models: ['slow-model'], chunkDelayMs: 100 }),
    startOpenAiDouble({ name: 'fast', models: [MODEL] }),
  ]);
  process.env.CHAT_STREAM_TEST_KEY = 'sk-test-upstream';
  gateway = await startTestGateway({
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'slow', base_url: slow.url, api_key_env: 'CHAT_STREAM_TEST_KEY', models: ['slow-model'] },
      { name: 'fast', base_url: fast.url, api_key_env: 'CHAT_STREAM_TEST_KEY', models: [MODEL] },
    ]),
    CHAT_GUARDRAIL: 'off',
    CHAT_STREAM_STALL_MS: '1500',
    CHAT_USAGE_WRITE_ATTEMPTS: '3',
    CHAT_USAGE_RETRY_MS: '100',
  });
  gateway.server.on('connection', (socket: Socket) => sockets.push(socket));
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 1 });
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
  await Promise.all([slow?.close(), fast?.close()]);
});

/** Usage rows of one key, polled until there is one (usage is written after the answer). */
async function usageOf(keyId: string): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 100; i += 1) {
    const rows = await usageRows(keyId);
    if (rows.length > 0) return rows;
    await sleep(50);
  }
  return [];
}

/** A streamed request over a raw socket; resolves with the response once its headers are in. */
function openStream(key: string, model: string, text: string, n = 1): Promise<IncomingMessage> {
  const url = new URL(`${gateway.url}/v1/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      resolve,
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model, messages: [{ role: 'user', content: text }], stream: true, n }));
  });
}

/** Usage rows of one key, with the column names the assertions use. */
async function usageRows(keyId: string): Promise<Record<string, unknown>[]> {
  const rows = await orm.em.fork().find(ChatUsage, { apiKey: keyId });
  return rows.map((r) => ({
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    total_tokens: r.totalTokens,
    stream: r.stream,
    provider: r.provider,
    model: r.model,
    upstream_model: r.upstreamModel,
  }));
}

/** A fault: the usage table renamed away under the store, so Postgres refuses its inserts until it is back. */
const usageTableAway = () =>
  // eslint-disable-next-line tp-tables/table-owner -- a fault injected under the store, not a query of the table
  orm.em.getConnection().execute('alter table chat_usage rename to chat_usage_away');
const usageTableBack = () =>
  orm.em.getConnection().execute('alter table chat_usage_away rename to chat_usage');

describe('a stream the client cuts short', () => {
  it('is charged what was relayed, estimated from characters when the provider sent no usage', async () => {
    const key = await gateway.store.create('client', 'leaves early');
    const prompt = 'one two three four five six seven eight nine ten';
    const res = await openStream(key.key, 'slow-model', prompt);
    let received = '';
    await new Promise<void>((resolve) => {
      res.on('data', (data: Buffer) => {
        received += data.toString();
        if (received.includes('"content":" ten"')) resolve();
      });
    });
    res.destroy();
    await slow.waitForAbort(5000);
    const [row] = await usageOf(key.id);
    // The double sends usage only after the last chunk, so both figures are estimates.
    expect(row).toMatchObject({
      prompt_tokens: estimatedTokens(prompt.length),
      stream: true,
      provider: 'slow',
    });
    // At least the relayed "slow:" and "ten", not the whole answer.
    expect(row?.completion_tokens).toBeGreaterThanOrEqual(estimatedTokens('slow:ten'.length));
    expect(row?.completion_tokens).toBeLessThan(estimatedTokens(`slow: ${prompt}`.length));
  });
});

describe('a client that stops reading', () => {
  it('makes the gateway stop reading the provider, buffering little, and is let go after the stall limit', async () => {
    const key = await gateway.store.create('client', 'stops reading');
    // About 50,000 words in 4 choices: the double streams a chunk of ~150 bytes per word and choice,
    // some 30 MB in all, far more than the kernel's socket buffers hold.
    const text = Array.from({ length: 50_000 }, (_, i) => `w${i}`).join(' ');
    const res = await openStream(key.key, MODEL, text, 4);
    res.pause();
    let largest = 0;
    const closed = new Promise<void>((resolve) => res.socket.once('close', () => resolve()));
    const watching = (async () => {
      for (let i = 0; i < 200; i += 1) {
        for (const socket of sockets) largest = Math.max(largest, socket.writableLength);
        if (res.socket.destroyed) return;
        await sleep(20);
      }
    })();
    await fast.waitForAbort(15_000);
    // Reading again, the client gets what was in flight and then the end of a connection let go.
    res.on('error', () => undefined).resume();
    await closed;
    await watching;
    // Without backpressure the whole answer (MBs) would sit in the gateway's socket buffer.
    expect(largest).toBeLessThan(512 * 1024);
    const [row] = await usageOf(key.id);
    expect(row).toMatchObject({ provider: 'fast', stream: true });
  }, 30_000);
});

describe('usage writes', () => {
  it('are retried until Postgres takes them', async () => {
    const key = await gateway.store.create('client', 'retried');
    await usageTableAway();
    try {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'count me' }] }),
      });
      expect(res.status).toBe(200);
      await sleep(150);
    } finally {
      await usageTableBack();
    }
    const rows = await usageOf(key.id);
    expect(rows).toHaveLength(1);
  });

  it('that keep failing are counted as lost (and logged whole), never the client problem', async () => {
    const key = await gateway.store.create('client', 'lost');
    const lost = async () => {
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      return Number(/^chat_usage_records_lost_total\{[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    };
    const before = await lost();
    await usageTableAway();
    try {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'lose me' }] }),
      });
      expect(res.status).toBe(200);
      // Three tries, 100 then 200 ms apart.
      for (let i = 0; i < 100 && (await lost()) === before; i += 1) await sleep(50);
    } finally {
      await usageTableBack();
    }
    expect(await lost()).toBe(before + 1);
  });
});
