import { describe, expect, it } from '@jest/globals';

import { EngineError, type TranslationEngine } from '../engines/engine.js';
import { coverageOf } from '../engines/pair-coverage.js';
import { createChain } from './chain.js';
import { enginesCheck } from './engines-check.js';

const engine = (name: 'apertium' | 'libretranslate', pairs: () => Promise<ReturnType<typeof coverageOf>>) =>
  ({
    name,
    maxChars: 5000,
    languagePairs: pairs,
    translate: async () => {
      throw new EngineError(name, 'transient', 'HTTP 503');
    },
  }) as TranslationEngine;

describe('the engines check of /ready', () => {
  it('is degraded, saying every translation is refused, when no engine is configured', async () => {
    await expect(enginesCheck(createChain({})).check()).resolves.toEqual({
      degraded:
        'no translation engine is configured: every translation answers 400 UNSUPPORTED_LANGUAGE_PAIR',
    });
  });

  it('is up once every engine told its pairs, and degraded, naming it, when one could not', async () => {
    const serving = engine('apertium', async () => coverageOf((s, t) => s === 'en' && t === 'es'));
    const unreachable = engine('libretranslate', async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5000');
    });
    const healthy = createChain({ apertium: serving });
    await healthy.directory.refresh(true);
    await expect(enginesCheck(healthy).check()).resolves.toBeUndefined();

    const one = createChain({ local: unreachable, apertium: serving });
    await one.directory.refresh(true);
    await expect(enginesCheck(one).check()).resolves.toEqual({
      degraded: 'libretranslate: its language pairs could not be read (connect ECONNREFUSED 127.0.0.1:5000)',
    });
  });

  it('names an engine whose circuit breaker is open', async () => {
    const failing = engine('apertium', async () => coverageOf((s, t) => s === 'en' && t === 'es'));
    const chain = createChain({
      apertium: failing,
      options: { resilience: { maxRetries: 0, breakerThreshold: 1, breakerCooldownMs: 60_000 } },
    });
    await chain.directory.refresh(true);
    await chain.translate({ text: 'Hello', source: 'en', target: 'es' }).catch(() => undefined);
    await expect(enginesCheck(chain).check()).resolves.toEqual({
      degraded: 'apertium: circuit breaker open',
    });
  });
});
