import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { waitFor } from '@tp/test/harness/wait';
import { startTestTranslator, tinyModelsDir, type TestTranslator } from '../../test/translator-fixture.js';
import type { ChainTestResult } from '@tp/service-contracts';

interface ErrorBody {
  readonly code: number;
  readonly error: string;
  readonly details?: { issues?: { path: string }[]; attempts?: ChainTestResult['attempts'] };
}

describe('POST /translate/test with nothing but the tiny offline model', () => {
  let models: Awaited<ReturnType<typeof tinyModelsDir>>;
  let translator: TestTranslator;

  const test = async <T = ChainTestResult>(body: unknown) => {
    const res = await fetch(`${translator.url}/translate/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    models = await tinyModelsDir();
    translator = await startTestTranslator({ ...models.settings, OPENCC_ENABLED: 'false' });
  });

  afterAll(async () => {
    await translator?.close();
    await models?.remove();
  });

  it('shows the offline engine answering and every slot of the chain with its time', async () => {
    const { status, body } = await test({ text: '你好，世界', source: 'zh-CN', target: 'en' });
    expect(status).toBe(200);
    expect(body).toEqual({
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
    expect(body.translatedText).toContain('world');
  });

  it('runs the chain even when the hot cache holds the text, and persists nothing', async () => {
    const cached = await translator.translate<{ cached: boolean }>({ text: '我们喜欢猫', target: 'en' });
    expect(cached.status).toBe(200);
    await waitFor(
      'the outbox row of the ordinary translation',
      async () => (await translator.outbox()).length === 1,
    );

    const first = await test({ text: '我们喜欢猫', source: 'zh-CN', target: 'en' });
    expect(first.status).toBe(200);
    expect(first.body.engine).toBe('offline');
    expect(first.body.attempts.at(-1)).toMatchObject({ slot: 'offline', outcome: 'ok' });

    // An ordinary request afterwards finds only what it stored itself, and the outbox holds only its row.
    const again = await translator.translate<{ cached: boolean }>({ text: '我们喜欢狗', target: 'en' });
    expect(again.body.cached).toBe(false);
    await waitFor('the second ordinary outbox row', async () => (await translator.outbox()).length === 2);
    const texts = (await translator.outbox()).map((row) => row.event.data.translatedText);
    expect(texts).toHaveLength(2);
  });

  it('answers 503 TRANSLATION_UNAVAILABLE with every timed attempt when no engine can translate', async () => {
    // Outside the tiny model's lexicon: the one engine serving zh-CN -> en fails.
    const { status, body } = await test<ErrorBody>({ text: '量子计算机', source: 'zh-CN', target: 'en' });
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
    expect(body.details?.attempts?.every((a) => typeof a.duration_ms === 'number')).toBe(true);
  });

  it('validates like POST /translate: every problem at once, and unsupported codes', async () => {
    const invalid = await test<ErrorBody>({ text: 1, target: 2, extra: true });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('VALIDATION_FAILED');
    expect(invalid.body.details?.issues?.map((i) => i.path).sort()).toEqual([
      'body',
      'body.target',
      'body.text',
    ]);

    const unsupported = await test<ErrorBody>({ text: '你好', source: 'zh-CN', target: 'qq' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('UNSUPPORTED_LANGUAGE');
  });
});
