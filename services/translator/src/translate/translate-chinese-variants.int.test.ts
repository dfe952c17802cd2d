import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';
import type { TranslationResult } from './translate-text.js';

// The translator with its default settings: OpenCC is on without any configuration.
describe('POST /translate between zh-CN and zh-TW on the default settings', () => {
  let translator: TestTranslator;

  beforeAll(async () => {
    translator = await startTestTranslator();
  });

  afterAll(async () => {
    await translator?.close();
  });

  it('converts Simplified Chinese into Traditional Chinese with Taiwan vocabulary', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: '软件和鼠标',
      source: 'zh-CN',
      target: 'zh-TW',
    });

    expect(status).toBe(200);
    expect(body).toMatchObject({
      translatedText: '軟體和滑鼠',
      engine: 'opencc',
      route: [{ source: 'zh-CN', target: 'zh-TW', engine: 'opencc' }],
    });
  });

  it('converts Taiwan Traditional Chinese back into mainland Simplified Chinese', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: '我們坐計程車去買軟體',
      source: 'zh-TW',
      target: 'zh-CN',
    });

    expect(status).toBe(200);
    expect(body).toMatchObject({ translatedText: '我们坐出租车去买软件', engine: 'opencc' });
  });

  it('lists both directions among the pairs translatable now', async () => {
    const { body } = await translator.get<{ pairs: { source: string; target: string; engines: string[] }[] }>(
      '/pairs',
    );

    expect(body.pairs).toEqual(
      expect.arrayContaining([
        { source: 'zh-CN', target: 'zh-TW', engines: ['opencc'] },
        { source: 'zh-TW', target: 'zh-CN', engines: ['opencc'] },
      ]),
    );
  });

  it('refuses a pair only the converter could be asked about as 400 UNSUPPORTED_LANGUAGE_PAIR', async () => {
    const { status, body } = await translator.translate<{ error: string }>({
      text: '软件和鼠标',
      source: 'zh-CN',
      target: 'en',
    });

    expect(status).toBe(400);
    expect(body.error).toBe('UNSUPPORTED_LANGUAGE_PAIR');
  });
});
