import { describe, expect, it } from '@jest/globals';
import { TermScanner } from '@tp/translation';

import {
  EngineError,
  oneTextPerCall,
  type EngineName,
  type EngineResult,
  type TranslationEngine,
} from '../engines/engine.js';
import { coverageOf } from '../engines/pair-coverage.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { createChain, type ChainOptions } from './chain.js';
import { pivotLanguages } from './pivot-routes.js';
import { UnsupportedPairError } from './unsupported-pair.error.js';

const options: ChainOptions = {
  resilience: { maxRetries: 0, timeoutMs: 500, breakerThreshold: 100, breakerCooldownMs: 30 },
};

/** A coverage serving exactly these directions (`en>es`). */
const serving = (...pairs: string[]) => coverageOf((source, target) => pairs.includes(`${source}>${target}`));

/**
 * An engine serving `pairs`; it "translates" by tagging the text with the hop (`[en>es] text`), so a
 * route's steps show in the output. It records every call.
 */
function engine(name: EngineName, pairs: string[], fails = false) {
  const calls: string[] = [];
  const translator: TranslationEngine = {
    name,
    maxChars: 5000,
    languagePairs: async () => serving(...pairs),
    translate: oneTextPerCall(async ({ text, source, target }) => {
      calls.push(`${source}>${target}`);
      if (fails) throw new EngineError(name, 'transient', 'HTTP 503');
      return { text: `[${source}>${target}] ${text}`, truncated: false, unknownWords: 1 };
    }),
  };
  return { engine: translator, calls };
}

const request = (source: string, target: string) => ({ text: 'Good morning', source, target });
const isPair = (pair: string) => (source: string, target: string) => `${source}>${target}` === pair;
const isTarget = (code: string) => (target: string) => target === code;

describe('per-pair routing', () => {
  it('skips an engine whose list lacks the pair without calling it, and says so in the attempts', async () => {
    const libre = engine('libretranslate', ['en>de']);
    const apertium = engine('apertium', ['en>es']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'es'));

    expect(libre.calls).toEqual([]);
    expect(result).toMatchObject({ text: '[en>es] Good morning', engine: 'apertium', unknownWords: 1 });
    expect(result.route).toEqual([{ source: 'en', target: 'es', engine: 'apertium' }]);
    expect(result.attempts.map(({ slot, outcome }) => `${slot}:${outcome}`)).toEqual([
      'variant:skipped',
      'primary:skipped',
      'fallback:skipped',
      'local:unsupported',
      'apertium:ok',
    ]);
    expect(result.attempts[3]?.reason).toBe('no libretranslate pair for en -> es');
  });

  it('pivots through a language two hops connect when no engine serves the pair (en -> pt through es)', async () => {
    const apertium = engine('apertium', ['en>es', 'es>pt', 'es>en']);
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'pt'));

    expect(result.text).toBe('[es>pt] [en>es] Good morning');
    expect(result.engine).toBe('apertium');
    expect(result.route).toEqual([
      { source: 'en', target: 'es', engine: 'apertium' },
      { source: 'es', target: 'pt', engine: 'apertium' },
    ]);
    expect(apertium.calls).toEqual(['en>es', 'es>pt']);
    const hops = result.attempts.filter((attempt) => attempt.source !== undefined);
    expect(hops.map(({ source, target, outcome }) => `${source}>${target}:${outcome}`)).toEqual([
      'en>es:ok',
      'es>pt:ok',
    ]);
    const direct = result.attempts.filter((attempt) => attempt.source === undefined);
    expect(direct.map(({ slot, outcome }) => `${slot}:${outcome}`)).toEqual([
      'variant:skipped',
      'primary:skipped',
      'fallback:skipped',
      'local:skipped',
      'apertium:unsupported',
      'offline:skipped',
    ]);
  });

  it('names both engines when the hops are served by different engines', async () => {
    const libre = engine('libretranslate', ['fr>es']);
    const apertium = engine('apertium', ['es>en']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('fr', 'en'));

    expect(result.engine).toBe('libretranslate+apertium');
    expect(result.route.map(({ engine: name }) => name)).toEqual(['libretranslate', 'apertium']);
  });

  it('answers UNSUPPORTED_LANGUAGE_PAIR (400) when neither an engine nor a two-hop route serves the pair', async () => {
    const apertium = engine('apertium', ['en>es', 'es>en']);
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const error = await chain.translate(request('en', 'de')).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UnsupportedPairError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_LANGUAGE_PAIR', httpStatus: 400 });
    expect(apertium.calls).toEqual([]);
  });

  it('names what would make an unserved pair work, from the deployment, in the message and the details', async () => {
    const apertium = engine('apertium', ['en>es', 'es>en']);
    const remedies = (source: string, target: string) => [`pull ${source}-${target}`, 'add an engine'];
    const chain = createChain({ apertium: apertium.engine, options: { ...options, remedies } });
    await chain.directory.refresh(true);

    const error = (await chain
      .translate(request('en', 'de'))
      .catch((caught: unknown) => caught)) as UnsupportedPairError;

    expect(error.message).toBe(
      'en -> de: no installed engine serves this pair, directly or through another language (GET /api/v1/translate/pairs lists those served); to translate it: pull en-de, or add an engine. Retrying will not help.',
    );
    expect(error.details).toMatchObject({
      source: 'en',
      target: 'de',
      remedies: ['pull en-de', 'add an engine'],
    });
  });

  it('answers UNSUPPORTED_LANGUAGE_PAIR, not 503, when no engine is configured at all: no retry can help', async () => {
    const chain = createChain({ options: { ...options, remedies: () => ['configure an engine'] } });

    const error = await chain.translate(request('zh-CN', 'en')).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UnsupportedPairError);
    expect(error).toMatchObject({ httpStatus: 400, remedies: ['configure an engine'] });
    expect((error as UnsupportedPairError).attempts.every(({ outcome }) => outcome === 'skipped')).toBe(true);
  });

  it('does not pivot when an engine serves the pair but fails: 503 TRANSLATION_UNAVAILABLE', async () => {
    const libre = engine('libretranslate', ['en>pt'], true);
    const apertium = engine('apertium', ['en>es', 'es>pt']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const error = await chain.translate(request('en', 'pt')).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ code: 'TRANSLATION_UNAVAILABLE' });
    expect(apertium.calls).toEqual([]);
  });

  it('calls an engine whose list is not known yet and lets it refuse by itself', async () => {
    const apertium = engine('apertium', ['en>es']);
    const chain = createChain({ apertium: apertium.engine, options });

    const result = await chain.translate(request('en', 'es'));

    expect(result.engine).toBe('apertium');
    expect(apertium.calls).toEqual(['en>es']);
  });

  it('lists the pairs served now, direct ones with their engines and the others with their pivot route', async () => {
    const libre = engine('libretranslate', ['en>es']);
    const apertium = engine('apertium', ['en>es', 'es>pt']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    expect(chain.servedPairs()).toEqual([
      { source: 'en', target: 'es', engines: ['libretranslate', 'apertium'] },
      { source: 'es', target: 'pt', engines: ['apertium'] },
      {
        source: 'en',
        target: 'pt',
        engines: [],
        via: 'es',
        route: [
          { source: 'en', target: 'es', engines: ['libretranslate', 'apertium'] },
          { source: 'es', target: 'pt', engines: ['apertium'] },
        ],
      },
    ]);
  });
});

describe('pivot routes in detail', () => {
  /** An engine serving what `pairs()` says at each refresh, answering with `answer`; it records what it was sent. */
  function custom(
    name: EngineName,
    pairs: () => string[],
    answer: (text: string, hop: string) => EngineResult,
  ) {
    const sent: string[] = [];
    const translator: TranslationEngine = {
      name,
      maxChars: 5000,
      languagePairs: async () => serving(...pairs()),
      translate: oneTextPerCall(async ({ text, source, target }) => {
        sent.push(text);
        return answer(text, `${source}>${target}`);
      }),
    };
    return { engine: translator, sent };
  }

  it('masks glossary terms before the first hop and writes the target term after the second: no engine sees them', async () => {
    const apertium = custom(
      'apertium',
      () => ['en>es', 'es>pt'],
      (text, hop) => ({ text: `[${hop}] ${text}`, truncated: false }),
    );
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);
    const glossary = {
      key: 'g:1',
      source: 'en',
      target: 'pt',
      entries: [{ source: 'Acme', target: 'Acme Brasil' }],
      scanner: new TermScanner(['Acme']),
    };

    const result = await chain.translate({ text: 'Acme morning', source: 'en', target: 'pt', glossary });

    expect(result.text).toBe('[es>pt] [en>es] Acme Brasil morning');
    expect(apertium.sent.join(' | ')).not.toContain('Acme');
  });

  it('says truncated when either hop was cut, and gives the larger unknown-word count of the hops', async () => {
    const cutFirst = custom(
      'apertium',
      () => ['en>es', 'es>pt'],
      (text, hop) =>
        hop === 'en>es'
          ? { text: `[${hop}] ${text}`, truncated: true, unknownWords: 3 }
          : { text: `[${hop}] ${text}`, truncated: false, unknownWords: 1 },
    );
    const chain = createChain({ apertium: cutFirst.engine, options });
    await chain.directory.refresh(true);

    await expect(chain.translate(request('en', 'pt'))).resolves.toMatchObject({
      truncated: true,
      unknownWords: 3,
    });
  });

  it('leaves the unknown-word count out when no hop gives one', async () => {
    const plain = custom(
      'apertium',
      () => ['en>es', 'es>pt'],
      (text, hop) => ({ text: `[${hop}] ${text}`, truncated: false }),
    );
    const chain = createChain({ apertium: plain.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'pt'));

    expect(result.truncated).toBe(false);
    expect(result).not.toHaveProperty('unknownWords');
  });

  it('never pivots a text whose source language is to be detected, even when a route from auto exists', async () => {
    const apertium = engine('apertium', ['en>es', 'es>pt']);
    // It detects into es (auto>es) and serves es>pt: only the rule keeps auto>pt from going through es.
    const detecting = {
      ...apertium.engine,
      languagePairs: async () => coverageOf(isPair('es>pt'), isTarget('es')),
    };
    const chain = createChain({ apertium: detecting, options });
    await chain.directory.refresh(true);

    await expect(chain.translate(request('auto', 'pt'))).rejects.toBeInstanceOf(UnsupportedPairError);
    expect(apertium.calls).toEqual([]);
  });

  it.each([
    ['first', 'en>es'],
    ['second', 'es>pt'],
  ])('answers 503 with every attempt when a pivot route fails on its %s hop', async (_which, failingHop) => {
    const apertium = custom(
      'apertium',
      () => ['en>es', 'es>pt'],
      (text, hop) => {
        if (hop === failingHop) throw new EngineError('apertium', 'transient', 'HTTP 503');
        return { text: `[${hop}] ${text}`, truncated: false };
      },
    );
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const error = await chain.translate(request('en', 'pt')).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AllEnginesFailedError);
    const [source, target] = failingHop.split('>');
    expect((error as AllEnginesFailedError).attempts.at(-1)).toMatchObject({
      engine: 'apertium',
      source,
      target,
      outcome: 'failed',
    });
  });

  it('lists the pairs again once one of the engines learned a new list, and not before', async () => {
    let pairs = ['en>es'];
    const apertium = custom(
      'apertium',
      () => pairs,
      (text) => ({ text, truncated: false }),
    );
    // It does not answer the second time and keeps its list: one changed list among several is enough.
    let libreAsked = 0;
    const libre = custom(
      'libretranslate',
      () => {
        libreAsked += 1;
        if (libreAsked > 1) throw new Error('libretranslate is down');
        return ['de>fr'];
      },
      (text) => ({ text, truncated: false }),
    );
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);
    const first = chain.servedPairs();

    expect(chain.servedPairs()).toBe(first);
    pairs = ['en>es', 'es>en'];
    await chain.directory.refresh(true);

    expect(chain.servedPairs().map(({ source, target }) => `${source}>${target}`)).toEqual([
      'de>fr',
      'en>es',
      'es>en',
    ]);
  });

  it('keeps a pair list only for the engines the chain has', async () => {
    const chain = createChain({
      primary: engine('deepl', ['en>es']).engine,
      apertium: engine('apertium', ['en>es']).engine,
      options,
    });
    await chain.directory.refresh(true);

    expect(chain.directory.status().map((entry) => entry.engine)).toEqual(['deepl', 'apertium']);
  });

  it('learns again the list of an engine that refused a pair its list had', async () => {
    let asked = 0;
    const refusing: TranslationEngine = {
      name: 'apertium',
      maxChars: 5000,
      languagePairs: async () => {
        asked += 1;
        return serving('en>es');
      },
      async translate() {
        throw new EngineError('apertium', 'unsupported', 'no such pair');
      },
    };
    // Asked again as soon as due: only the refusal can make the list due.
    const chain = createChain({ apertium: refusing, options: { ...options, pairs: { retryMs: 0 } } });
    await chain.directory.refresh(true);
    await chain.directory.refresh();
    expect(asked).toBe(1);

    await expect(chain.translate(request('en', 'es'))).rejects.toBeInstanceOf(UnsupportedPairError);
    await chain.directory.refresh();

    expect(asked).toBe(2);
    expect(chain.status()[3]).toMatchObject({ failures: 0, successes: 0 });
    expect(chain.status()[3]).not.toHaveProperty('lastError');
  });
});

describe('pivotLanguages', () => {
  it('ranks pivots by their weaker hop, then both hops, then English first and the list order', () => {
    const strong = serving('fr>de', 'de>it', 'fr>en');
    const weak = serving('en>it', 'fr>es', 'es>it');

    // via de: both hops on the strong engine; via en and es: one hop on the weak engine.
    expect(pivotLanguages([strong, weak], 'fr', 'it', 3)).toEqual(['de', 'en', 'es']);
  });

  it('ranks by the weaker hop, not the stronger one', () => {
    // via es: both hops on the second engine (weaker hop 1); via de: first and third (weaker hop 2).
    const coverages = [serving('fr>de'), serving('fr>es', 'es>it'), serving('de>it')];
    expect(pivotLanguages(coverages, 'fr', 'it', 3)).toEqual(['es', 'de']);
  });

  it('breaks a tie of the weaker hop by both hops together, before the preference for English', () => {
    // Both weaker hops are on the third engine; via de the other hop is on the first (sum 2), via en
    // on the third too (sum 4).
    const coverages = [serving('de>it'), serving(), serving('fr>de', 'fr>en', 'en>it')];
    expect(pivotLanguages(coverages, 'fr', 'it', 3)).toEqual(['de', 'en']);
  });

  it('takes no pivot whose first hop no engine serves, even when its second hop is served', () => {
    expect(pivotLanguages([serving('de>it')], 'fr', 'it', 3)).toEqual([]);
  });

  it('skips engines whose list is unknown and never pivots through the source or the target', () => {
    expect(pivotLanguages([undefined, serving('en>es', 'es>en')], 'en', 'en', 3)).toEqual([]);
    expect(pivotLanguages([undefined], 'en', 'pt')).toEqual([]);
  });

  it('returns at most two pivots by default', () => {
    const all = coverageOf(() => true);
    // All tie: English is the source, so the language list's order decides.
    expect(pivotLanguages([all], 'en', 'pt')).toEqual(['zh-CN', 'ja']);
  });
});

describe('fallback results (issue #19)', () => {
  it('flags an answer as fallback when an earlier engine that serves the pair failed', async () => {
    const deepl = engine('deepl', ['en>de'], true);
    const libre = engine('libretranslate', ['en>de']);
    const chain = createChain({ primary: deepl.engine, local: libre.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'de'));

    expect(result).toMatchObject({ engine: 'libretranslate', fallback: true, truncated: false });
    expect(chain.strongerEngineHealthy('libretranslate', 'en', 'de')).toBe(true);
    expect(chain.strongerEngineHealthy('deepl', 'en', 'de')).toBe(false);
  });

  it('does not flag the first engine that serves the pair, whatever its slot', async () => {
    const deepl = engine('deepl', ['en>fr'], true);
    const libre = engine('libretranslate', ['en>de']);
    const chain = createChain({ primary: deepl.engine, local: libre.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'de'));

    expect(deepl.calls).toEqual([]);
    expect(result).toMatchObject({ engine: 'libretranslate', fallback: false });
    // DeepL does not serve en -> de: nothing stronger could answer it.
    expect(chain.strongerEngineHealthy('libretranslate', 'en', 'de')).toBe(false);
  });

  it('sees no stronger engine healthy while its breaker is open', async () => {
    const deepl = engine('deepl', ['en>de'], true);
    const libre = engine('libretranslate', ['en>de']);
    const chain = createChain({
      primary: deepl.engine,
      local: libre.engine,
      options: { resilience: { ...options.resilience, breakerThreshold: 1, breakerCooldownMs: 60_000 } },
    });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'de'));

    expect(result).toMatchObject({ engine: 'libretranslate', fallback: true });
    expect(chain.status()[1]?.breaker).toBe('open');
    expect(chain.strongerEngineHealthy('libretranslate', 'en', 'de')).toBe(false);
  });
});

describe('fallback results on pivot routes', () => {
  it('flags a pivot result as fallback when a stronger engine failed on one hop', async () => {
    const libre = engine('libretranslate', ['en>es'], true);
    const apertium = engine('apertium', ['en>es', 'es>pt']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('en', 'pt'));

    expect(result).toMatchObject({ engine: 'apertium', fallback: true });
    expect(result.route.map(({ source, target }) => `${source}>${target}`)).toEqual(['en>es', 'es>pt']);
  });

  it('does not flag a pivot result whose hops were answered by the first engine that serves them', async () => {
    const apertium = engine('apertium', ['en>es', 'es>pt']);
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    await expect(chain.translate(request('en', 'pt'))).resolves.toMatchObject({ fallback: false });
  });

  it('counts any healthy earlier engine as stronger for a pivot route, whatever pairs it lists', async () => {
    const deepl = engine('deepl', ['en>de']);
    const libre = engine('libretranslate', ['fr>es']);
    const apertium = engine('apertium', ['es>en']);
    const chain = createChain({
      primary: deepl.engine,
      local: libre.engine,
      apertium: apertium.engine,
      options,
    });
    await chain.directory.refresh(true);

    // The pivot's weakest engine is apertium: DeepL before it is healthy, though it lists no fr -> en.
    expect(chain.strongerEngineHealthy('libretranslate+apertium', 'fr', 'en')).toBe(true);
    // For the pair itself, an engine that does not list it could not better the answer.
    expect(chain.strongerEngineHealthy('apertium', 'fr', 'en')).toBe(false);
  });

  it('ranks a pivot by its weakest engine: the earlier hop engine counts as stronger', async () => {
    const deepl = engine('deepl', ['en>es']);
    const apertium = engine('apertium', ['es>pt']);
    const chain = createChain({ primary: deepl.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    expect(chain.strongerEngineHealthy('deepl+apertium', 'en', 'pt')).toBe(true);
    expect(chain.strongerEngineHealthy('deepl', 'en', 'es')).toBe(false);
  });
});

describe('stronger engines whose list is unknown', () => {
  it('counts an earlier engine whose pair list is not known yet as serving the pair', async () => {
    const deepl = engine('deepl', ['en>de']);
    const libre = engine('libretranslate', ['en>de']);
    // Not refreshed: no engine's list is known.
    const chain = createChain({ primary: deepl.engine, local: libre.engine, options });

    expect(chain.strongerEngineHealthy('libretranslate', 'en', 'de')).toBe(true);
  });

  it('sees nothing stronger than an engine the chain does not have', async () => {
    const deepl = engine('deepl', ['en>de']);
    const libre = engine('libretranslate', ['en>de']);
    const chain = createChain({ primary: deepl.engine, local: libre.engine, options });
    await chain.directory.refresh(true);

    expect(chain.strongerEngineHealthy('google', 'en', 'de')).toBe(false);
  });
});

describe('attempts and pair lists on a pivot route', () => {
  it('shows for each hop only the engines that serve it, not the ones whose list lacks it', async () => {
    const libre = engine('libretranslate', ['fr>es']);
    const apertium = engine('apertium', ['es>en']);
    const chain = createChain({ local: libre.engine, apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const result = await chain.translate(request('fr', 'en'));

    const hops = result.attempts.filter((attempt) => attempt.source !== undefined);
    expect(hops.map(({ engine: name, source, target }) => `${name}:${source}>${target}`)).toEqual([
      'libretranslate:fr>es',
      'apertium:es>en',
    ]);
    expect(result.attempts.filter((attempt) => attempt.source === undefined)).toHaveLength(6);
  });

  it('does not ask an engine for its list again after it answered', async () => {
    let asked = 0;
    const apertium: TranslationEngine = {
      ...engine('apertium', []).engine,
      languagePairs: async () => {
        asked += 1;
        return serving('en>es');
      },
    };
    // Asked again as soon as due: only a refusal could make the list due.
    const chain = createChain({ apertium, options: { ...options, pairs: { retryMs: 0 } } });
    await chain.directory.refresh(true);

    await chain.translate(request('en', 'es'));
    await chain.directory.refresh();

    expect(asked).toBe(1);
  });
});
