import { describe, expect, it } from '@jest/globals';

import { EngineError } from '../engine.js';
import { createOpenCcEngine } from './opencc.engine.js';

const engine = createOpenCcEngine();
const signal = new AbortController().signal;
const convert = async (text: string, source: string, target: string) => {
  const [item] = await engine.translate({ texts: [text], source, target }, signal);
  if (!item || item instanceof EngineError) throw new Error(`no conversion: ${String(item)}`);
  return item.text;
};

describe('the OpenCC engine', () => {
  // Mainland and Taiwan vocabulary for the same thing (OpenCC's TWPhrases dictionary).
  it.each([
    ['软件', '軟體'],
    ['鼠标', '滑鼠'],
    ['出租车', '計程車'],
    ['软件和鼠标', '軟體和滑鼠'],
    ['我们坐出租车去买新的鼠标和软件。', '我們坐計程車去買新的滑鼠和軟體。'],
  ])('converts %s (zh-CN) to %s (zh-TW) with Taiwan vocabulary', async (simplified, taiwan) => {
    expect(await convert(simplified, 'zh-CN', 'zh-TW')).toBe(taiwan);
  });

  it.each([
    ['軟體', '软件'],
    ['滑鼠', '鼠标'],
    ['計程車', '出租车'],
    ['軟體和滑鼠', '软件和鼠标'],
    ['我們坐計程車去買新的滑鼠和軟體。', '我们坐出租车去买新的鼠标和软件。'],
  ])('converts %s (zh-TW) back to %s (zh-CN) with mainland vocabulary', async (taiwan, simplified) => {
    expect(await convert(taiwan, 'zh-TW', 'zh-CN')).toBe(simplified);
  });

  it('leaves what is not Chinese, and the chain placeholders, as they are', async () => {
    expect(await convert('⟦0⟧软件 v2.1 (Linux) ⟦1⟧', 'zh-CN', 'zh-TW')).toBe('⟦0⟧軟體 v2.1 (Linux) ⟦1⟧');
  });

  it('serves the two Chinese directions and no other pair', async () => {
    const coverage = await engine.languagePairs(signal);

    expect(coverage.pairs()).toEqual([
      { source: 'zh-CN', target: 'zh-TW' },
      { source: 'zh-TW', target: 'zh-CN' },
    ]);
    expect(coverage.serves('auto', 'zh-TW')).toBe(false);
    expect(coverage.serves('zh-CN', 'en')).toBe(false);
  });

  it('refuses a pair it does not serve as unsupported, without converting', async () => {
    await expect(convert('软件', 'zh-CN', 'en')).rejects.toMatchObject({
      constructor: EngineError,
      kind: 'unsupported',
      engine: 'opencc',
    });
  });

  it('converts each text of a batch, in order', async () => {
    const items = await engine.translate(
      { texts: ['软件', '鼠标', '出租车'], source: 'zh-CN', target: 'zh-TW' },
      signal,
    );

    expect(items).toEqual([
      { text: '軟體', truncated: false },
      { text: '滑鼠', truncated: false },
      { text: '計程車', truncated: false },
    ]);
  });

  it('converts a 50,000-character text in one call', async () => {
    const text = '软件和鼠标'.repeat(10_000);

    const converted = await convert(text, 'zh-CN', 'zh-TW');

    expect(converted).toBe('軟體和滑鼠'.repeat(10_000));
    expect(engine.maxChars).toBeGreaterThanOrEqual(text.length);
  });
});
