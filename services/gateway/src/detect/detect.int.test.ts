import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestTranslator, type TestTranslator } from '../../../translator/test/translator-fixture.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { OpenApiContract } from '../../test/openapi-contract.js';

interface Detection {
  language: string | null;
  reliable: boolean;
  reason: string | null;
  candidates: { language: string; confidence: number }[];
}

interface Reply {
  readonly status: number;
  readonly body: { code: number; error?: string; data?: { results: Detection[] } };
}

let translator: TestTranslator;
let gateway: TestGateway;
let contract: OpenApiContract;

beforeAll(async () => {
  translator = await startTestTranslator();
  gateway = await startTestGateway({ TRANSLATOR_URL: translator.url, MAX_TEXT_CHARS: '50000' });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await gateway?.close();
  await translator?.close();
});

async function detect(body: unknown, key?: string): Promise<Reply> {
  const res = await fetch(`${gateway.url}/api/v1/detect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  contract.check('post', '/api/v1/detect', reply.status, reply.body);
  return reply;
}

describe('POST /api/v1/detect', () => {
  it('answers one text with its language and candidates, best first', async () => {
    const { status, body } = await detect({ text: '我們坐計程車去買新的滑鼠和軟體。' });

    expect(status).toBe(200);
    const [result] = body.data?.results ?? [];
    expect(result).toMatchObject({ language: 'zh-TW', reliable: true, reason: null });
    expect(result?.candidates.map((c) => c.language)).toEqual(['zh-TW', 'zh-CN']);
  });

  it('answers an array in its order, saying which texts cannot be told', async () => {
    const { body } = await detect({
      text: [
        'Tidak dapat membuat berkas cache direktori',
        '12345 !!!',
        '😀😀😀',
        'Der Bus hat Verspätung, und niemand weiß warum',
      ],
    });

    expect(body.data?.results.map((r) => [r.language, r.reason])).toEqual([
      ['id', null],
      [null, 'no_letters'],
      [null, 'no_letters'],
      ['de', null],
    ]);
  });

  it('answers a 50,000-character run of one character, and mixed scripts, with a clear answer', async () => {
    const long = await detect({ text: ['软'.repeat(50_000)] }, gateway.keys.client);
    const mixed = await detect({ text: 'Привет всем друзьям مرحبا بالجميع يا أصدقاء' });

    expect(long.body.data?.results[0]).toMatchObject({ language: 'zh-CN', reliable: true });
    expect(mixed.body.data?.results[0]).toMatchObject({ language: null, reliable: false, reason: 'mixed' });
  });

  it('applies the limits of POST /api/v1/translate: 5000 characters without a key, 413 beyond', async () => {
    const anonymous = await detect({ text: ['a'.repeat(3000), 'b'.repeat(3000)] });
    const keyed = await detect({ text: ['a'.repeat(3000), 'b'.repeat(3000)] }, gateway.keys.client);

    expect(anonymous).toMatchObject({ status: 413, body: { error: 'TEXT_TOO_LONG' } });
    expect(keyed.status).toBe(200);
  });

  it('refuses an empty list, more than 100 texts, and a text that is not a string', async () => {
    for (const text of [[], Array.from({ length: 101 }, () => 'x'), [1], { a: 'b' }]) {
      expect(await detect({ text })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
    }
  });
});
