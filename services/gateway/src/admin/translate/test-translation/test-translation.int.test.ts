import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import {
  startTestTranslator,
  tinyModelsDir,
  type TestTranslator,
} from '../../../../../translator/test/translator-fixture.js';
import { startTestGateway, type TestGateway } from '../../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../../test/openapi-contract.js';

interface Attempt {
  slot: string;
  engine: string | null;
  outcome: string;
  duration_ms: number;
}

interface Reply {
  readonly status: number;
  readonly body: {
    code: number;
    error?: string;
    data?: { translatedText: string; engine: string; source: string; attempts: Attempt[] };
    details?: { attempts?: Attempt[]; issues?: { path: string }[] };
  };
}

let models: Awaited<ReturnType<typeof tinyModelsDir>>;
let translator: TestTranslator | undefined;
let gateway: TestGateway;
let contract: OpenApiContract;

beforeAll(async () => {
  models = await tinyModelsDir();
  translator = await startTestTranslator({ ...models.settings, OPENCC_ENABLED: 'false' });
  gateway = await startTestGateway({ TRANSLATOR_URL: translator.url });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await gateway?.close();
  await translator?.close();
  await models?.remove();
});

async function test(body: unknown, key = gateway.keys.admin): Promise<Reply> {
  const res = await fetch(`${gateway.url}/api/admin/translate/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = { status: res.status, body: (await res.json()) as Reply['body'] };
  contract.check('post', '/api/admin/translate/test', reply.status, reply.body);
  return reply;
}

describe('POST /api/admin/translate/test', () => {
  it('shows which engine answered and every attempt with its time', async () => {
    const { status, body } = await test({ text: '你好，世界', source: 'zh-CN', target: 'en' });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      translatedText: expect.stringContaining('hello'),
      source: 'zh-CN',
      target: 'en',
      engine: 'offline',
      truncated: false,
      duration: expect.any(Number),
      attempts: [
        { slot: 'variant', engine: null, outcome: 'skipped', reason: 'not configured', duration_ms: 0 },
        { slot: 'primary', engine: null, outcome: 'skipped', reason: 'not configured', duration_ms: 0 },
        { slot: 'fallback', engine: null, outcome: 'skipped', reason: 'not configured', duration_ms: 0 },
        { slot: 'local', engine: null, outcome: 'skipped', reason: 'not configured', duration_ms: 0 },
        { slot: 'apertium', engine: null, outcome: 'skipped', reason: 'not configured', duration_ms: 0 },
        { slot: 'offline', engine: 'offline', outcome: 'ok', duration_ms: expect.any(Number) },
      ],
      route: [{ source: 'zh-CN', target: 'en', engine: 'offline' }],
    });
  });

  it('answers 503 TRANSLATION_UNAVAILABLE with the timed attempts when no engine can translate', async () => {
    // Outside the tiny model's lexicon: the one engine serving zh-CN -> en fails.
    const { status, body } = await test({ text: '量子计算机', source: 'zh-CN', target: 'en' });
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 50302, error: 'TRANSLATION_UNAVAILABLE' });
    expect(body.details?.attempts?.map((a) => [a.slot, a.outcome])).toEqual([
      ['variant', 'skipped'],
      ['primary', 'skipped'],
      ['fallback', 'skipped'],
      ['local', 'skipped'],
      ['apertium', 'skipped'],
      ['offline', 'failed'],
    ]);
    expect(body.details?.attempts?.at(-1)?.duration_ms).toEqual(expect.any(Number));
  });

  it('validates like POST /api/v1/translate', async () => {
    const missing = await test({ source: 'zh-CN', target: 5 });
    expect(missing.status).toBe(400);
    expect(missing.body.details?.issues?.map((i) => i.path).sort()).toEqual(['body.target', 'body.text']);
    const unsupported = await test({ text: '你好', target: 'xx' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('is for admins only', async () => {
    expect((await test({ text: '你好', target: 'en' }, gateway.keys.client)).status).toBe(403);
  });

  it('answers 503 TRANSLATOR_UNAVAILABLE when the translator is down', async () => {
    await translator?.close();
    translator = undefined;
    const { status, body } = await test({ text: '你好', source: 'zh-CN', target: 'en' });
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 50303, error: 'TRANSLATOR_UNAVAILABLE' });
  });
});
