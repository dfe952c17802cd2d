import { describe, expect, it } from '@jest/globals';
import { TermScanner } from '@tp/translation';

import {
  EngineError,
  type BatchLimits,
  type EngineItem,
  type EngineName,
  type TranslationEngine,
} from '../engines/engine.js';
import { coverageOf, EVERY_PAIR, type PairCoverage } from '../engines/pair-coverage.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { createChain, type ChainItem, type ChainOptions } from './chain.js';
import { UnsupportedPairError } from './unsupported-pair.error.js';

/** How a fake engine answers one text of a call; throwing fails the whole call. */
type AnswerOne = (text: string) => EngineItem;

/** A batch engine that records the texts of each call. */
function batchEngine(
  name: EngineName,
  answer: AnswerOne,
  options: { batch?: BatchLimits; maxChars?: number; pairs?: PairCoverage } = {},
) {
  const calls: string[][] = [];
  const engine: TranslationEngine = {
    name,
    maxChars: options.maxChars ?? 5000,
    ...(options.batch ? { batch: options.batch } : {}),
    languagePairs: async () => options.pairs ?? EVERY_PAIR,
    async translate({ texts }) {
      calls.push([...texts]);
      return texts.map(answer);
    },
  };
  return { engine, calls };
}

/** Every o becomes 0: easy to check, tokens and spacing untouched. */
const zeroes: AnswerOne = (text) => ({ text: text.replaceAll('o', '0'), truncated: false });
const tagged =
  (tag: string): AnswerOne =>
  (text) => ({ text: `[${tag}] ${text}`, truncated: false });

const options: ChainOptions = {
  resilience: { maxRetries: 0, timeoutMs: 500, breakerThreshold: 100, breakerCooldownMs: 30 },
};
const BIG = { maxTexts: 50, maxChars: 10_000 };

const textOf = (item: ChainItem | undefined) => (item instanceof Error ? item.code : item?.text);

describe('translateBatch', () => {
  it('answers every text in order from one engine call, and blank texts as they are without asking', async () => {
    const primary = batchEngine('deepl', zeroes, { batch: BIG });
    const chain = createChain({ primary: primary.engine, options });

    const items = await chain.translateBatch({
      texts: ['Good morning', '  ', 'Hello world', '', 'No'],
      source: 'en',
      target: 'de',
    });

    expect(items.map(textOf)).toEqual(['G00d m0rning', '  ', 'Hell0 w0rld', '', 'N0']);
    expect(primary.calls).toEqual([['Good morning', 'Hello world', 'No']]);
    expect(items[1]).toMatchObject({ engine: undefined, attempts: [], route: [] });
    expect(items[0]).toMatchObject({
      engine: 'deepl',
      route: [{ source: 'en', target: 'de', engine: 'deepl' }],
    });
  });

  it('sends an engine calls within its limits of texts and characters, never more', async () => {
    const primary = batchEngine('google', zeroes, { batch: { maxTexts: 3, maxChars: 25 } });
    const chain = createChain({ primary: primary.engine, options });
    const texts = ['one two', 'three', 'four four', 'five', 'sixty six songs', 'seven oaks'];

    const items = await chain.translateBatch({ texts, source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual(texts.map((text) => text.replaceAll('o', '0')));
    expect(primary.calls).toEqual([
      ['one two', 'three', 'four four'],
      ['five', 'sixty six songs'],
      ['seven oaks'],
    ]);
  });

  it('sends an engine without batch limits one text per call', async () => {
    const fallback = batchEngine('mymemory', zeroes);
    const chain = createChain({ fallback: fallback.engine, options });

    await chain.translateBatch({ texts: ['a one', 'a two', 'a three'], source: 'en', target: 'de' });

    expect(fallback.calls).toEqual([['a one'], ['a two'], ['a three']]);
  });

  it('gives the next engine only the text the first failed, and each text its own attempts', async () => {
    const primary = batchEngine(
      'deepl',
      (text) => (text.includes('bad') ? new EngineError('deepl', 'rejected', 'cannot') : zeroes(text)),
      { batch: BIG },
    );
    const local = batchEngine('libretranslate', tagged('local'), { batch: BIG });
    const chain = createChain({ primary: primary.engine, local: local.engine, options });

    const items = await chain.translateBatch({
      texts: ['Good morning', 'a bad one', 'Hello world'],
      source: 'en',
      target: 'de',
    });

    expect(items.map(textOf)).toEqual(['G00d m0rning', '[local] a bad one', 'Hell0 w0rld']);
    expect(local.calls).toEqual([['a bad one']]);
    expect(items[1]).toMatchObject({ engine: 'libretranslate', fallback: true });
    expect(items[0]).toMatchObject({ engine: 'deepl', fallback: false });
    const outcomes = (item: ChainItem | undefined) =>
      item instanceof Error || !item ? [] : item.attempts.map(({ slot, outcome }) => `${slot}:${outcome}`);
    expect(outcomes(items[0])).toEqual(['variant:skipped', 'primary:ok']);
    expect(outcomes(items[1])).toEqual(['variant:skipped', 'primary:failed', 'fallback:skipped', 'local:ok']);
  });

  it('fails every text of a call that failed as a whole, and the next engine takes them all', async () => {
    const primary = batchEngine(
      'deepl',
      () => {
        throw new EngineError('deepl', 'transient', 'HTTP 503');
      },
      { batch: BIG },
    );
    const local = batchEngine('libretranslate', zeroes, { batch: BIG });
    const chain = createChain({ primary: primary.engine, local: local.engine, options });

    const items = await chain.translateBatch({ texts: ['one', 'two'], source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual(['0ne', 'tw0']);
    expect(primary.calls).toEqual([['one', 'two']]);
    expect(local.calls).toEqual([['one', 'two']]);
  });

  it('answers each text that no engine translated with its own error, the others with their translation', async () => {
    const primary = batchEngine(
      'deepl',
      (text) => (text === 'fail' ? new EngineError('deepl', 'rejected', 'no') : zeroes(text)),
      { batch: BIG },
    );
    const chain = createChain({ primary: primary.engine, options });

    const items = await chain.translateBatch({ texts: ['good', 'fail', 'food'], source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual(['g00d', 'TRANSLATION_UNAVAILABLE', 'f00d']);
    expect(items[1]).toBeInstanceOf(AllEnginesFailedError);
  });

  it('answers UnsupportedPairError for every text of a pair no engine serves, directly or by pivot', async () => {
    const apertium = batchEngine('apertium', zeroes, {
      batch: BIG,
      pairs: coverageOf((source, target) => source === 'en' && target === 'es'),
    });
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const items = await chain.translateBatch({ texts: ['one', 'two'], source: 'en', target: 'ja' });

    expect(items.every((item) => item instanceof UnsupportedPairError)).toBe(true);
    expect(apertium.calls).toEqual([]);
  });

  it('pivots the texts no engine serves through a language two hops connect, in two calls for all', async () => {
    const apertium = batchEngine('apertium', tagged('hop'), {
      batch: BIG,
      pairs: coverageOf(
        (source, target) => `${source}>${target}` === 'en>es' || `${source}>${target}` === 'es>pt',
      ),
    });
    const chain = createChain({ apertium: apertium.engine, options });
    await chain.directory.refresh(true);

    const items = await chain.translateBatch({ texts: ['one', 'two'], source: 'en', target: 'pt' });

    expect(items.map(textOf)).toEqual(['[hop] [hop] one', '[hop] [hop] two']);
    expect(apertium.calls).toEqual([
      ['one', 'two'],
      ['[hop] one', '[hop] two'],
    ]);
    expect(items[0]).toMatchObject({
      route: [
        { source: 'en', target: 'es', engine: 'apertium' },
        { source: 'es', target: 'pt', engine: 'apertium' },
      ],
    });
  });

  it('splits long texts into pieces of at most maxChars, sends the pieces of several texts together and joins each', async () => {
    const primary = batchEngine('deepl', zeroes, { batch: BIG, maxChars: 20 });
    const chain = createChain({ primary: primary.engine, options });
    const long = 'Good morning. How are you? Nothing to report.';

    const items = await chain.translateBatch({ texts: [long, 'Short one.'], source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual([long.replaceAll('o', '0'), 'Sh0rt 0ne.']);
    expect(primary.calls).toHaveLength(1);
    expect(primary.calls[0]?.every((piece) => piece.length <= 20)).toBe(true);
    expect(primary.calls[0]).toContain('Short one.');
  });

  it('checks each answer on its own: a runaway answer fails its text only', async () => {
    const primary = batchEngine(
      'deepl',
      (text) => (text === 'loop me' ? { text: 'ha'.repeat(100), truncated: false } : zeroes(text)),
      { batch: BIG },
    );
    const local = batchEngine('libretranslate', tagged('local'), { batch: BIG });
    const chain = createChain({ primary: primary.engine, local: local.engine, options });

    const items = await chain.translateBatch({
      texts: ['loop me', 'Hello world'],
      source: 'en',
      target: 'de',
    });

    expect(items.map(textOf)).toEqual(['[local] loop me', 'Hell0 w0rld']);
    expect(local.calls).toEqual([['loop me']]);
  });

  it('accepts an unchanged answer of one text when a second engine agrees, per text', async () => {
    const echo: AnswerOne = (text) => ({ text, truncated: false });
    const primary = batchEngine(
      'deepl',
      (text) => (text === 'Acme Cloud Suite' ? echo(text) : zeroes(text)),
      {
        batch: BIG,
      },
    );
    const local = batchEngine('libretranslate', echo, { batch: BIG });
    const chain = createChain({ primary: primary.engine, local: local.engine, options });

    const items = await chain.translateBatch({
      texts: ['Acme Cloud Suite', 'Good food'],
      source: 'en',
      target: 'de',
    });

    expect(items.map(textOf)).toEqual(['Acme Cloud Suite', 'G00d f00d']);
    expect(items[0]).toMatchObject({ engine: 'libretranslate' });
    expect(local.calls).toEqual([['Acme Cloud Suite']]);
  });

  it('masks protected spans and glossary terms per text, and restores them in each', async () => {
    const primary = batchEngine('google', zeroes, { batch: BIG });
    const chain = createChain({ primary: primary.engine, options });
    const glossary = {
      key: 'g:1',
      source: 'en',
      target: 'de',
      entries: [{ source: 'Acme', target: 'Akme' }],
      scanner: new TermScanner(['Acme']),
    };

    const items = await chain.translateBatch({
      texts: ['Hello {name}, welcome to Acme', 'Open https://example.com/foo now'],
      source: 'en',
      target: 'de',
      glossary,
    });

    expect(items.map(textOf)).toEqual(['Hell0 {name}, welc0me t0 Akme', 'Open https://example.com/foo n0w']);
    expect(primary.calls[0]?.join(' ')).not.toMatch(/Acme|example|\{name\}/);
  });

  it('answers translate() as a batch of one, throwing the text error', async () => {
    const primary = batchEngine(
      'deepl',
      (text) => (text === 'fail' ? new EngineError('deepl', 'rejected', 'no') : zeroes(text)),
      { batch: BIG },
    );
    const chain = createChain({ primary: primary.engine, options });

    const one = await chain.translate({ text: 'Good food', source: 'en', target: 'de' });
    const [batched] = await chain.translateBatch({ texts: ['Good food'], source: 'en', target: 'de' });

    expect({ ...one, attempts: [] }).toEqual({ ...(batched as object), attempts: [] });
    await expect(chain.translate({ text: 'fail', source: 'en', target: 'de' })).rejects.toBeInstanceOf(
      AllEnginesFailedError,
    );
  });

  it('rejects with the reason of an abort instead of answering', async () => {
    const primary = batchEngine('deepl', zeroes, { batch: BIG });
    const chain = createChain({ primary: primary.engine, options });
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);

    await expect(
      chain.translateBatch({ texts: ['one', 'two'], source: 'en', target: 'de' }, controller.signal),
    ).rejects.toBe(reason);
  });
});
