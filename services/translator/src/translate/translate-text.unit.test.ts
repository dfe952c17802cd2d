import { describe, expect, it } from '@jest/globals';
import { AppError } from '@tp/runtime';
import type { CacheKeyInput, CachedTranslation, HotCache } from '@tp/translation';

import {
  AllEnginesFailedError,
  type Attempt,
  type ChainItemError,
  type ChainResult,
  type TranslateRequest,
  type TranslationChain,
} from '../chain/index.js';
import type { GlossaryLookup } from '../glossary/glossary-directory.js';
import type { CompletedTranslationSink, CompletedTranslation } from './completed-translations.outbox.js';
import { TranslateText } from './translate-text.js';

const origin = { correlationId: 'corr', causationId: 'req' };

/**
 * A chain that answers each text with `answer` (or fails it with it), remembering each text it was
 * asked (`calls`) and each batch (`batches`).
 */
type FakeAnswer = Partial<ChainResult> | ChainItemError;

function fakeChain(answer: FakeAnswer | ((text: string) => FakeAnswer)) {
  const calls: TranslateRequest[] = [];
  const batches: string[][] = [];
  const chain: Pick<TranslationChain, 'translateBatch'> = {
    async translateBatch({ texts, ...pair }) {
      batches.push([...texts]);
      return texts.map((text) => {
        calls.push({ text, ...pair });
        const own = typeof answer === 'function' ? answer(text) : answer;
        if (own instanceof Error) return own;
        return {
          text: 'translated',
          engine: 'deepl',
          truncated: false,
          fallback: false,
          attempts: [],
          route: [],
          ...own,
        };
      });
    },
  };
  return { chain, calls, batches };
}

/** An in-memory hot cache with the real one's rule: truncated entries are not stored. */
function fakeCache() {
  const entries = new Map<string, CachedTranslation>();
  const key = (input: CacheKeyInput) => `${input.source}|${input.target}|${input.text}`;
  const cache: Pick<HotCache, 'readMany' | 'storeMany'> = {
    readMany: async (inputs) => inputs.map((input) => entries.get(key(input))),
    storeMany: async (stores) => {
      const complete = stores.filter(({ entry }) => !entry.truncated);
      for (const { input, entry } of complete)
        entries.set(key(input), { ...entry, fallback: entry.fallback ?? false });
      return complete.length > 0;
    },
  };
  return { cache, entries };
}

/** The in-memory cache, with every key read (text and glossary version) in order. */
function readsCounted() {
  const { cache } = fakeCache();
  const reads: string[] = [];
  const counted: typeof cache = {
    storeMany: cache.storeMany,
    readMany: async (inputs) => {
      reads.push(...inputs.map((input) => `${input.text} g${input.glossaryVersion ?? 0}`));
      return cache.readMany(inputs);
    },
  };
  return { cache: counted, reads };
}

function setup(answer: FakeAnswer = {}, detected?: string) {
  const { chain, calls } = fakeChain(answer);
  const { cache, entries } = fakeCache();
  const recorded: CompletedTranslation[] = [];
  const sink: CompletedTranslationSink = { record: (completed) => recorded.push(...completed) };
  const translateText = new TranslateText({
    chain,
    cache,
    detector: { detect: () => detected },
    sink,
    maxTextChars: 50,
  });
  return { translateText, calls, entries, recorded };
}

/** TranslateText over the fake chain and cache with glossaries: none stored, but for `glossaries`. */
function withGlossaries(answer: FakeAnswer, glossaries: Partial<GlossaryLookup>) {
  const { chain } = fakeChain(answer);
  const { cache, entries } = fakeCache();
  const translateText = new TranslateText({
    chain,
    cache,
    detector: { detect: () => undefined },
    sink: { record: () => undefined },
    maxTextChars: 50,
    glossaries: {
      forPair: () => Promise.resolve({ version: 0 }),
      cacheVersion: () => Promise.resolve(0),
      named: () => Promise.resolve([]),
      ...glossaries,
    },
  });
  return { translateText, entries };
}

const attempt = (slot: Attempt['slot'], outcome: Attempt['outcome'], reason?: string): Attempt => ({
  slot,
  outcome,
  ms: 0,
  ...(reason ? { reason } : {}),
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('TranslateText', () => {
  it('records a truncated result for persistence, flagged, but does not cache it', async () => {
    const { translateText, entries, recorded } = setup({ engine: 'mymemory', truncated: true });
    const result = await translateText.execute({ text: 'Hallo Welt', source: 'de', target: 'en' }, origin);
    expect(result).toMatchObject({ engine: 'mymemory', truncated: true, cached: false });
    expect(entries.size).toBe(0);
    expect(recorded).toEqual([expect.objectContaining({ truncated: true, engine: 'mymemory' })]);
  });

  it('caches a fallback result with its flag, and a hit says fallback while no stronger engine is healthy', async () => {
    const { translateText, calls, entries } = setup({ engine: 'mymemory', fallback: true });
    const first = await translateText.execute({ text: 'Hallo Welt', source: 'de', target: 'en' }, origin);
    const again = await translateText.execute({ text: 'Hallo Welt', source: 'de', target: 'en' }, origin);
    expect(first).toMatchObject({ engine: 'mymemory', fallback: true, cached: false });
    expect(again).toMatchObject({ engine: 'mymemory', fallback: true, cached: true });
    expect([...entries.values()]).toEqual([expect.objectContaining({ fallback: true })]);
    expect(calls).toHaveLength(1);
  });

  it('reads past a cached fallback result while a stronger engine is healthy, and caches the better one', async () => {
    const { chain, calls } = fakeChain({ engine: 'deepl', fallback: false, text: 'Hello world' });
    const { cache, entries } = fakeCache();
    const asked: string[] = [];
    const translateText = new TranslateText({
      chain: {
        ...chain,
        strongerEngineHealthy: (engine, source, target) => (
          asked.push(`${engine}:${source}>${target}`),
          true
        ),
      },
      cache,
      detector: { detect: () => undefined },
      sink: { record: () => undefined },
      maxTextChars: 50,
    });
    const key = { source: 'de', target: 'en', text: 'Hallo Welt', glossaryVersion: 0 };
    await cache.storeMany([
      {
        input: key,
        entry: {
          translatedText: 'Hello',
          source: 'de',
          engine: 'mymemory',
          cachedAt: '',
          truncated: false,
          fallback: true,
        },
      },
    ]);
    const result = await translateText.execute({ text: 'Hallo Welt', source: 'de', target: 'en' }, origin);
    expect(result).toMatchObject({
      engine: 'deepl',
      fallback: false,
      cached: false,
      translatedText: 'Hello world',
    });
    expect(calls).toHaveLength(1);
    expect(asked[0]).toBe('mymemory:de>en');
    expect([...entries.values()]).toEqual([expect.objectContaining({ engine: 'deepl', fallback: false })]);
  });

  it('normalises codes before the cache key and the chain (EN_us -> en, zh-cn -> zh-CN)', async () => {
    const { translateText, calls, entries } = setup();
    await translateText.execute({ text: 'Hello there', source: 'EN_us', target: 'zh-cn' }, origin);
    expect(calls).toEqual([{ text: 'Hello there', source: 'en', target: 'zh-CN' }]);
    expect([...entries.keys()]).toEqual(['en|zh-CN|Hello there']);
  });

  it('passes our own detection to the chain and reports it as detectedSource', async () => {
    const { translateText, calls, recorded } = setup({}, 'de');
    const result = await translateText.execute({ text: 'Guten Tag', source: 'auto', target: 'en' }, origin);
    expect(calls[0]?.source).toBe('de');
    expect(result).toMatchObject({ source: 'de', detectedSource: 'de' });
    expect(recorded[0]).toMatchObject({ source: 'de', detectedSource: 'de' });
  });

  it('sends auto to the engines when we cannot tell, and takes the language the engine found', async () => {
    const { translateText, calls, entries } = setup({ detectedSource: 'fr' });
    const result = await translateText.execute({ text: 'Salut', source: 'auto', target: 'en' }, origin);
    expect(calls[0]?.source).toBe('auto');
    expect(result).toMatchObject({ source: 'fr', detectedSource: 'fr' });
    expect([...entries.keys()].sort()).toEqual(['auto|en|Salut', 'fr|en|Salut']);
  });

  it('answers an auto text the engine detected even when the glossaries cannot be read for the language found', async () => {
    const { translateText, entries } = withGlossaries(
      { detectedSource: 'fr' },
      {
        forPair: (source) =>
          source === 'auto' ? Promise.resolve({ version: 0 }) : Promise.reject(new Error('postgres is down')),
      },
    );
    const result = await translateText.execute({ text: 'Salut', source: 'auto', target: 'en' }, origin);
    expect(result).toMatchObject({ translatedText: 'translated', source: 'fr' });
    expect([...entries.keys()]).toEqual(['auto|en|Salut']);
  });

  it('reports the glossary only to the request that named it when an identical text runs at the same time', async () => {
    const { translateText } = withGlossaries(
      {},
      { named: (name) => Promise.resolve(name === 'menu' ? [{ source: 'fr', target: 'en' }] : []) },
    );
    const pair = { text: 'Salut', source: 'fr', target: 'en' };
    const [named, plain] = await Promise.all([
      translateText.execute({ ...pair, glossary: 'menu' }, origin),
      translateText.execute(pair, origin),
    ]);
    expect(named.controls).toEqual({ glossary: 'ignored' });
    expect(plain.controls).toBeUndefined();
  });

  it('returns the text as it is, with no engine, when source and target are the same language', async () => {
    const { translateText, calls, recorded } = setup({}, 'en');
    const same = await translateText.execute({ text: 'Hello there', source: 'en-GB', target: 'en' }, origin);
    const detected = await translateText.execute(
      { text: 'Hello there', source: 'auto', target: 'en' },
      origin,
    );
    expect(same).toMatchObject({ translatedText: 'Hello there', engine: 'none', attempts: [] });
    expect(detected).toMatchObject({ translatedText: 'Hello there', engine: 'none', detectedSource: 'en' });
    expect(calls).toHaveLength(0);
    expect(recorded).toHaveLength(0);
  });

  it('turns "every engine that ran needs a known source" into a 400 asking for source', async () => {
    const failed = new AllEnginesFailedError([
      attempt('primary', 'skipped', 'not configured'),
      attempt('fallback', 'unsupported', 'unsupported: mymemory: no MyMemory pair for auto -> en'),
      attempt('offline', 'unsupported', 'unsupported: offline: offline models need a known source language'),
    ]);
    const { translateText } = setup(failed);
    const err = await rejection(
      translateText.execute({ text: 'Salut', source: 'auto', target: 'en' }, origin),
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', httpStatus: 400 });
  });

  it('keeps the 503 for auto when an engine failed for another reason (down, quota)', async () => {
    const failed = new AllEnginesFailedError([
      attempt('primary', 'failed', 'transient: deepl: HTTP 503'),
      attempt('offline', 'unsupported', 'unsupported: offline: offline models need a known source language'),
    ]);
    const { translateText } = setup(failed);
    const err = await rejection(
      translateText.execute({ text: 'Salut', source: 'auto', target: 'en' }, origin),
    );
    expect(err).toBe(failed);
  });

  it('refuses text over the maximum with TEXT_TOO_LONG before any engine call', async () => {
    const { translateText, calls } = setup();
    const err = await rejection(
      translateText.execute({ text: 'x'.repeat(51), source: 'en', target: 'de' }, origin),
    );
    expect(err).toMatchObject({ code: 'TEXT_TOO_LONG', httpStatus: 413, details: { length: 51, max: 50 } });
    expect(calls).toHaveLength(0);
  });

  it('returns whitespace-only text as it is without calling an engine', async () => {
    const { translateText, calls } = setup();
    const result = await translateText.execute({ text: '  \n ', source: 'en', target: 'de' }, origin);
    expect(result).toMatchObject({ translatedText: '  \n ', engine: 'none' });
    expect(calls).toHaveLength(0);
  });

  it('makes one engine call for identical concurrent requests, and answers the next from the cache', async () => {
    const { chain, calls } = fakeChain({});
    const { cache: counted, reads } = readsCounted();
    const sink: CompletedTranslationSink = { record: () => undefined };
    const deps = { chain, cache: counted, detector: { detect: () => undefined }, sink, maxTextChars: 50 };
    const translateText = new TranslateText(deps);
    const request = { text: 'hello', source: 'en', target: 'de' };

    const answers = await Promise.all([1, 2, 3].map(() => translateText.execute(request, origin)));
    expect(answers.map((answer) => answer.cached)).toEqual([false, false, false]);
    expect(answers.map((answer) => answer.translatedText)).toEqual(Array(3).fill('translated'));
    expect(calls).toHaveLength(1);
    // The requests joined one run, which read the cache once before the chain.
    expect(reads).toEqual(['hello g0']);
    expect(await translateText.execute(request, origin)).toMatchObject({ cached: true, attempts: [] });
    expect(calls).toHaveLength(1);
  });

  it('answers before the result is stored, and a request arriving meanwhile joins the run', async () => {
    const { chain, calls } = fakeChain({});
    const { cache, entries } = fakeCache();
    let stored = () => {};
    const storing = new Promise<void>((resolve) => (stored = resolve));
    // Redis answers the SET only when the test says.
    const slowStore: typeof cache = {
      readMany: cache.readMany,
      storeMany: async (stores) => {
        await storing;
        return cache.storeMany(stores);
      },
    };
    const sink: CompletedTranslationSink = { record: () => undefined };
    const deps = { chain, cache: slowStore, detector: { detect: () => undefined }, sink, maxTextChars: 50 };
    const translateText = new TranslateText(deps);
    const request = { text: 'hello', source: 'en', target: 'de' };

    const first = await translateText.execute(request, origin);
    expect(first).toMatchObject({ cached: false, translatedText: 'translated' });
    expect(entries.size).toBe(0);
    // The cache write has not landed: a request now joins the finished run instead of missing.
    const second = await translateText.execute(request, origin);
    expect(second).toMatchObject({ cached: false, translatedText: 'translated' });
    expect(calls).toHaveLength(1);

    stored();
    await new Promise((resolve) => setImmediate(resolve));
    expect(entries.size).toBe(1);
    expect(await translateText.execute(request, origin)).toMatchObject({ cached: true });
    expect(calls).toHaveLength(1);
  });

  it('answers when the cache write fails, and the next request translates again', async () => {
    const { chain, calls } = fakeChain({});
    const { cache } = fakeCache();
    const failingStore: typeof cache = {
      readMany: cache.readMany,
      storeMany: () => Promise.reject(new Error('redis went away')),
    };
    const sink: CompletedTranslationSink = { record: () => undefined };
    const deps = {
      chain,
      cache: failingStore,
      detector: { detect: () => undefined },
      sink,
      maxTextChars: 50,
    };
    const translateText = new TranslateText(deps);
    const request = { text: 'hello', source: 'en', target: 'de' };

    expect(await translateText.execute(request, origin)).toMatchObject({ translatedText: 'translated' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await translateText.execute(request, origin)).toMatchObject({ cached: false });
    expect(calls).toHaveLength(2);
  });
});

describe('TranslateText on a batch', () => {
  it('answers each text in order from one chain call, a failed text with its own error', async () => {
    const failed = new AllEnginesFailedError([attempt('primary', 'failed', 'transient: deepl: HTTP 503')]);
    const { chain, batches } = fakeChain((text) => (text === 'two' ? failed : { text: text.toUpperCase() }));
    const { cache } = fakeCache();
    const recorded: (readonly CompletedTranslation[])[] = [];
    const translateText = new TranslateText({
      chain,
      cache,
      detector: { detect: () => undefined },
      sink: { record: (completed) => recorded.push(completed) },
      maxTextChars: 50,
    });

    const items = await translateText.executeBatch(
      { texts: ['one', 'two', 'three'], source: 'en', target: 'de' },
      origin,
    );

    expect(batches).toEqual([['one', 'two', 'three']]);
    expect(items).toEqual([
      expect.objectContaining({ translatedText: 'ONE', cached: false }),
      failed,
      expect.objectContaining({ translatedText: 'THREE', cached: false }),
    ]);
    // The request's translations reach persistence together (one event), the failed text left out.
    expect(recorded.map((request) => request.map((completed) => completed.text))).toEqual([['one', 'three']]);
  });

  it('answers cached texts from the cache and sends only the others to the chain', async () => {
    const { translateText, batches } = setupBatch();
    await translateText.executeBatch({ texts: ['Good morning'], source: 'en', target: 'de' }, origin);

    const items = await translateText.executeBatch(
      { texts: ['Good morning', 'Good night'], source: 'en', target: 'de' },
      origin,
    );

    expect(batches).toEqual([['Good morning'], ['Good night']]);
    expect(items.map((item) => !(item instanceof Error) && item.cached)).toEqual([true, false]);
  });

  it('translates a text repeated within a batch once, and answers both', async () => {
    const { translateText, calls } = setupBatch();

    const items = await translateText.executeBatch(
      { texts: ['Hello', 'Hello', '  '], source: 'en', target: 'de' },
      origin,
    );

    expect(calls.map((call) => call.text)).toEqual(['Hello']);
    expect(items).toEqual([
      expect.objectContaining({ translatedText: 'translated', engine: 'deepl' }),
      expect.objectContaining({ translatedText: 'translated', engine: 'deepl' }),
      expect.objectContaining({ translatedText: '  ', engine: 'none' }),
    ]);
  });

  it('sends an auto batch to the chain per detected language', async () => {
    const { chain, batches, calls } = fakeChain({});
    const translateText = new TranslateText({
      chain,
      cache: fakeCache().cache,
      detector: { detect: (text) => (text.startsWith('Guten') ? 'de' : 'fr') },
      sink: { record: () => undefined },
      maxTextChars: 50,
    });

    const items = await translateText.executeBatch(
      { texts: ['Guten Tag', 'Bonjour', 'Guten Abend'], source: 'auto', target: 'en' },
      origin,
    );

    expect(batches.sort()).toEqual([['Bonjour'], ['Guten Tag', 'Guten Abend']]);
    expect(calls.map((call) => call.source).sort()).toEqual(['de', 'de', 'fr']);
    expect(items.map((item) => !(item instanceof Error) && item.detectedSource)).toEqual(['de', 'fr', 'de']);
  });

  it('refuses a batch whose texts together pass the maximum with TEXT_TOO_LONG, before any engine call', async () => {
    const { translateText, calls } = setupBatch();
    const err = await rejection(
      translateText.executeBatch(
        { texts: ['x'.repeat(30), 'y'.repeat(21)], source: 'en', target: 'de' },
        origin,
      ),
    );
    expect(err).toMatchObject({ code: 'TEXT_TOO_LONG', httpStatus: 413, details: { length: 51, max: 50 } });
    expect(calls).toHaveLength(0);
  });
});

function setupBatch() {
  const { chain, calls, batches } = fakeChain({});
  const translateText = new TranslateText({
    chain,
    cache: fakeCache().cache,
    detector: { detect: () => undefined },
    sink: { record: () => undefined },
    maxTextChars: 50,
  });
  return { translateText, calls, batches };
}
