import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestTranslator, tinyModelsDir, type TestTranslator } from '../../test/translator-fixture.js';
import type { TranslationResult } from './translate-text.js';

describe('POST /translate with nothing but the tiny offline model', () => {
  let models: Awaited<ReturnType<typeof tinyModelsDir>>;
  let translator: TestTranslator;

  beforeAll(async () => {
    models = await tinyModelsDir();
    translator = await startTestTranslator({ ...models.settings, OPENCC_ENABLED: 'false' });
  });

  afterAll(async () => {
    await translator?.close();
    await models?.remove();
  });

  it('translates 你好，世界 (source defaults to zh-CN) into text containing hello and world', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: '你好，世界',
      target: 'en',
    });
    expect(status).toBe(200);
    expect(body.translatedText).toContain('hello');
    expect(body.translatedText).toContain('world');
    expect(body).toMatchObject({ source: 'zh-CN', target: 'en', engine: 'offline', truncated: false });
    expect(body.attempts.map((a) => [a.slot, a.outcome])).toEqual([
      ['variant', 'skipped'],
      ['primary', 'skipped'],
      ['fallback', 'skipped'],
      ['local', 'skipped'],
      ['apertium', 'skipped'],
      ['offline', 'ok'],
    ]);
  });

  it('detects Chinese for auto itself, since the offline model needs a known source', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: '我们喜欢猫和狗！',
      source: 'auto',
      target: 'en',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      translatedText: 'we like cat and dog!',
      source: 'zh-CN',
      detectedSource: 'zh-CN',
      engine: 'offline',
    });
  });

  it('asks for source (400) when auto cannot be detected and no configured engine can detect', async () => {
    const { status, body } = await translator.translate<{ code: number; error: string; message: string }>({
      text: 'Hello, world!',
      source: 'auto',
      target: 'de',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    expect(body.message).toContain('could not be detected');
  });

  it('GET /engines shows only the offline slot configured, with its model flagged as a test model', async () => {
    const { body } = await translator.get<{
      engines: { slot: string; configured: boolean }[];
      offlineModels: unknown[];
    }>('/engines');
    expect(body.engines.map((e) => [e.slot, e.configured])).toEqual([
      ['variant', false],
      ['primary', false],
      ['fallback', false],
      ['local', false],
      ['apertium', false],
      ['offline', true],
    ]);
    expect(body.offlineModels).toEqual([
      {
        name: 'opus-mt-zh-en-tiny',
        source: 'zh-CN',
        target: 'en',
        testModel: true,
        loaded: expect.any(Boolean),
        shadowed: false,
      },
    ]);
  });
});
