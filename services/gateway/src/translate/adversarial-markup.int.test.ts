/**
 * Hostile markup through POST /api/v1/translate (issue 35): the real gateway, its translator and the
 * shared Apertium, in this process. Each shape gets a clear 4xx with a stable code or its correct
 * translation, never a 5xx, and no request holds the event loop (the gateway's and the translator's
 * work runs here, so a slow parse shows in this process's event-loop delay). Timed, so it lives in the
 * integration tier (see requestsOverLimit).
 */
import { request } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { requestsOverLimit } from '@tp/test/harness/event-loop-block';

import { startApertiumStack, type ApertiumStack, type TestGateway } from '../../test/gateway-fixture.js';

let stack: ApertiumStack;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  stack = await startApertiumStack();
  gateway = stack.gateway;
  // With a key a request may carry MAX_TEXT_CHARS (50,000) characters: markup that far reaches the parser.
  ({ key } = await gateway.store.create('client', 'hostile markup'));
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

type Format = 'html' | 'markdown';
let sent = 0;

/**
 * POST /api/v1/translate, en -> es, with the key. Each request has a context of its own: the hot
 * cache keys on it, so a repeated text is translated again rather than answered from the cache.
 */
async function translate(text: string | string[], format: Format, auth = true) {
  sent += 1;
  const res = await fetch(`${gateway.url}/api/v1/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ text, source: 'en', target: 'es', format, context: `request ${sent}` }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** The shapes of issue 35 at full size, and as large as a request may carry them. */
const HTML: readonly (readonly [string, string])[] = [
  ['100,000 nested tags', fill('<div>', 500_000)],
  ['9,999 nested tags', fill('<div>', 49_995)],
  ['16,000 nested inline tags', fill('<b>', 48_000)],
  ['200,000 attributes', `<p ${fill('a ', 400_000)}>x</p>`],
  ['24,000 attributes', `<p ${fill('a ', 48_000)}>x</p>`],
  ['12,000 attributes of one name', `<p ${fill('a=1 ', 48_000)}>The house is red</p>`],
  ['unclosed tags with text', fill('<b>bold <i>italic <p>para ', 50_000)],
  ['unclosed tags', '<p>The dog is <b>big'],
  ['an unclosed comment', `<p>The house is red</p><!--${fill('x', 49_000)}`],
  ['an unclosed attribute value', `<p title="${fill('x', 49_000)}`],
  ['misnested formatting', fill('<b><i></b></i>x', 49_995)],
];
const MARKDOWN: readonly (readonly [string, string])[] = [
  ['100,000 nested quotes', fill('>', 100_000)],
  ['49,000 nested quotes', `${fill('>', 49_000)} x`],
  ['3,000 unclosed brackets', `${fill('[', 3_000)}The house is red`],
  ['stars around one word', `${fill('*', 4_000)}house${fill('*', 4_000)}`],
];

describe('hostile markup through POST /api/v1/translate, with the real translator and Apertium', () => {
  const tooLong = { max: 50_000 };
  it.each([
    ['html', '100,000 nested tags', 413, 'TEXT_TOO_LONG', tooLong],
    ['html', '9,999 nested tags', 400, 'MARKUP_TOO_COMPLEX', { limit: 'depth' }],
    ['html', '16,000 nested inline tags', 400, 'MARKUP_TOO_COMPLEX', { limit: 'elements' }],
    ['html', '200,000 attributes', 413, 'TEXT_TOO_LONG', tooLong],
    ['html', '24,000 attributes', 400, 'MARKUP_TOO_COMPLEX', { limit: 'attributes' }],
    ['html', 'unclosed tags with text', 400, 'MARKUP_TOO_COMPLEX', { limit: 'nodes' }],
    ['markdown', '100,000 nested quotes', 413, 'TEXT_TOO_LONG', tooLong],
    ['markdown', '49,000 nested quotes', 400, 'MARKUP_TOO_COMPLEX', { limit: 'nesting' }],
    ['markdown', '3,000 unclosed brackets', 400, 'MARKUP_TOO_COMPLEX', { limit: 'brackets' }],
  ] as const)('%s, %s: %i %s', async (format, shape, status, error, details) => {
    const shapes = format === 'html' ? HTML : MARKDOWN;
    const text = (shapes.find(([name]) => name === shape) as [string, string])[1];
    const reply = await translate(text, format);

    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ error, details });
  });

  it('translates what a browser would make of unclosed tags and repeated attributes', async () => {
    const unclosed = await translate('<p>The dog is <b>big', 'html');
    const repeated = await translate(`<p ${fill('a=1 ', 48_000)}>The house is red</p>`, 'html');

    expect(unclosed).toMatchObject({
      status: 200,
      body: { data: { translatedText: '<p>El perro es <b>grande</b></p>' } },
    });
    expect(repeated).toMatchObject({
      status: 200,
      body: { data: { translatedText: '<p a="1">La casa es roja</p>' } },
    });
  });

  it('refuses 100,000 nested tags without a key at the anonymous limit, before any parsing', async () => {
    const reply = await translate(fill('<div>', 500_000), 'html', false);
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ error: 'TEXT_TOO_LONG' });
  });

  it('gives a hostile text of an array its own error and translates the others', async () => {
    const reply = await translate(['<p>The house is red</p>', fill('<div>', 40_000)], 'html');

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      data: {
        count: 2,
        failed: 1,
        translations: [
          expect.objectContaining({ translatedText: '<p>La casa es roja</p>' }),
          {
            error: expect.objectContaining({
              error: 'MARKUP_TOO_COMPLEX',
              details: expect.objectContaining({ limit: 'depth' }),
            }),
          },
        ],
      },
    });
  });

  it('refuses a 5 MB body with 413 PAYLOAD_TOO_LARGE before the client has sent it', async () => {
    // Content-Length says 5 MB; the first 64 KB are sent, the rest never: the answer comes anyway.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${gateway.url}/api/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.write(`{"text":"${fill('<div>', 64 * 1024)}`);
    });

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
  });

  it.each([
    ['html', HTML],
    ['markdown', MARKDOWN],
  ] as const)(
    '%s: no hostile request holds the event loop more than 100 ms',
    async (format, shapes) => {
      expect(await requestsOverLimit((text) => translate(text, format), shapes, 100)).toEqual([]);
    },
    // A loaded machine makes requests over the limit, which are tried again and measured against prose.
    240_000,
  );
});
