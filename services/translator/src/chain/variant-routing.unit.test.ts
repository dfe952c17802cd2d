import { describe, expect, it } from '@jest/globals';

import type { EngineName, TranslationEngine } from '../engines/engine.js';
import { createOpenCcEngine } from '../engines/opencc/opencc.engine.js';
import { coverageOf } from '../engines/pair-coverage.js';
import { createChain, type ChainOptions } from './chain.js';
import { UnsupportedPairError } from './unsupported-pair.error.js';

const options: ChainOptions = {
  resilience: { maxRetries: 0, timeoutMs: 2000, breakerThreshold: 100, breakerCooldownMs: 30 },
};

/** The real OpenCC engine, counting its calls. */
function opencc() {
  const real = createOpenCcEngine();
  const calls: string[] = [];
  const engine: TranslationEngine = {
    ...real,
    translate(request, signal) {
      calls.push(`${request.source}>${request.target}`);
      return real.translate(request, signal);
    },
  };
  return { engine, calls };
}

/** A translator serving `pairs` that tags what it got (`[zh-CN>en] 软件`), so the route shows. */
function tagging(name: EngineName, pairs: string[]) {
  const calls: string[] = [];
  const engine: TranslationEngine = {
    name,
    maxChars: 5000,
    languagePairs: async () => coverageOf((source, target) => pairs.includes(`${source}>${target}`)),
    translate: async ({ texts, source, target }) => {
      calls.push(`${source}>${target}`);
      return texts.map((text) => ({ text: `[${source}>${target}] ${text}`, truncated: false }));
    },
  };
  return { engine, calls };
}

describe('the variant slot (OpenCC) in the chain', () => {
  it('converts zh-CN to zh-TW itself, before a primary engine that also serves the pair', async () => {
    const deepl = tagging('deepl', ['zh-CN>zh-TW', 'zh-CN>en']);
    const chain = createChain({ variant: opencc().engine, primary: deepl.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate({ text: '软件和鼠标', source: 'zh-CN', target: 'zh-TW' });

    expect(result).toMatchObject({ text: '軟體和滑鼠', engine: 'opencc', fallback: false });
    expect(result.route).toEqual([{ source: 'zh-CN', target: 'zh-TW', engine: 'opencc' }]);
    expect(deepl.calls).toEqual([]);
  });

  it('is a pivot hop when an engine translates the other variant: zh-TW -> zh-CN -> en', async () => {
    const apertium = tagging('apertium', ['zh-CN>en']);
    const chain = createChain({ variant: opencc().engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate({ text: '軟體和滑鼠', source: 'zh-TW', target: 'en' });

    expect(result.text).toBe('[zh-CN>en] 软件和鼠标');
    expect(result.route).toEqual([
      { source: 'zh-TW', target: 'zh-CN', engine: 'opencc' },
      { source: 'zh-CN', target: 'en', engine: 'apertium' },
    ]);
    expect(result.engine).toBe('opencc+apertium');
  });

  it('makes no route through the other variant when nothing translates from it', async () => {
    const variant = opencc();
    const apertium = tagging('apertium', ['en>es', 'es>en']);
    const chain = createChain({ variant: variant.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const error = await chain
      .translate({ text: '軟體和滑鼠', source: 'zh-TW', target: 'en' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UnsupportedPairError);
    expect(variant.calls).toEqual([]);
    expect(apertium.calls).toEqual([]);
  });

  it('lists both directions as served by opencc', async () => {
    const chain = createChain({ variant: opencc().engine, options });
    await chain.directory.refresh(true);

    expect(chain.servedPairs()).toEqual([
      { source: 'zh-CN', target: 'zh-TW', engines: ['opencc'] },
      { source: 'zh-TW', target: 'zh-CN', engines: ['opencc'] },
    ]);
  });
});
