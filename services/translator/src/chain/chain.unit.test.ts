import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';

import {
  EngineError,
  oneTextPerCall,
  type EngineName,
  type EngineResult,
  type TextRequest,
  type TranslationEngine,
} from '../engines/engine.js';
import { EVERY_PAIR } from '../engines/pair-coverage.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { createChain, type ChainOptions } from './chain.js';

type Answer = (request: TextRequest, signal: AbortSignal) => Promise<EngineResult>;

/** Stands in for the engine port and records what it was asked. */
function fake(name: EngineName, answer: Answer, maxChars = 5000) {
  const received: string[] = [];
  const engine: TranslationEngine = {
    name,
    maxChars,
    languagePairs: async () => EVERY_PAIR,
    translate: oneTextPerCall((request, signal) => {
      received.push(request.text);
      return answer(request, signal);
    }),
  };
  return { engine, received };
}

/** A "translation" that is easy to check: every o becomes 0, tokens and spacing untouched. */
const zeroes: Answer = async ({ text }) => ({ text: text.replaceAll('o', '0'), truncated: false });
const failing =
  (kind: EngineError['kind'] = 'transient'): Answer =>
  async () => {
    throw new EngineError('deepl', kind, `${kind} failure`);
  };

/** No retries and tiny timings, so failures are quick and the breaker only opens when a test wants it. */
const options: ChainOptions = {
  resilience: { maxRetries: 0, timeoutMs: 200, breakerThreshold: 100, breakerCooldownMs: 30 },
};
const hello = { text: 'Hello world, how are you?', source: 'en', target: 'de' };

describe('createChain', () => {
  it('answers from the primary engine when it succeeds', async () => {
    const primary = fake('deepl', zeroes);
    const fallback = fake('mymemory', zeroes);
    const chain = createChain({ primary: primary.engine, fallback: fallback.engine, options });

    const result = await chain.translate(hello);

    expect(result).toMatchObject({ text: 'Hell0 w0rld, h0w are y0u?', engine: 'deepl', truncated: false });
    expect(result.attempts).toEqual([
      { slot: 'variant', outcome: 'skipped', reason: 'not configured', ms: 0 },
      { slot: 'primary', engine: 'deepl', outcome: 'ok', ms: expect.any(Number) },
    ]);
    expect(fallback.received).toEqual([]);
  });

  it('tries primary, fallback, local and offline in that order until one succeeds', async () => {
    const order: string[] = [];
    const failingNamed = (name: EngineName) => async () => {
      order.push(name);
      throw new EngineError(name, 'rejected', 'no');
    };
    const chain = createChain({
      primary: fake('google', failingNamed('google')).engine,
      fallback: fake('mymemory', failingNamed('mymemory')).engine,
      local: fake('libretranslate', failingNamed('libretranslate')).engine,
      offline: fake('offline', async (request) => {
        order.push('offline');
        return zeroes(request, new AbortController().signal);
      }).engine,
      options,
    });

    const result = await chain.translate(hello);

    expect(order).toEqual(['google', 'mymemory', 'libretranslate', 'offline']);
    expect(result.engine).toBe('offline');
    expect(result.attempts.map(({ slot, outcome }) => [slot, outcome])).toEqual([
      ['variant', 'skipped'],
      ['primary', 'failed'],
      ['fallback', 'failed'],
      ['local', 'failed'],
      ['apertium', 'skipped'],
      ['offline', 'ok'],
    ]);
    expect(result.attempts[1]?.reason).toBe('rejected: google: no');
  });

  it('skips slots without an engine and reports them as not configured', async () => {
    const chain = createChain({ local: fake('libretranslate', zeroes).engine, options });

    const result = await chain.translate(hello);

    expect(result.engine).toBe('libretranslate');
    expect(result.attempts).toEqual([
      { slot: 'variant', outcome: 'skipped', reason: 'not configured', ms: 0 },
      { slot: 'primary', outcome: 'skipped', reason: 'not configured', ms: 0 },
      { slot: 'fallback', outcome: 'skipped', reason: 'not configured', ms: 0 },
      { slot: 'local', engine: 'libretranslate', outcome: 'ok', ms: expect.any(Number) },
    ]);
  });

  it('sends a 12,000-character text to the primary as ordered chunks of at most 5000 and joins the answers in order', async () => {
    const sentence = 'Our store opens at noon. 我们的商店中午开门。Nous ouvrons à midi ! ';
    let text = '';
    for (let i = 0; text.length < 12_000; i += 1) text += `${i} ${sentence}`;
    const primary = fake('deepl', zeroes);
    const chain = createChain({ primary: primary.engine, options });

    const result = await chain.translate({ text, source: 'en', target: 'de' });

    expect(primary.received.length).toBe(3);
    expect(primary.received.every((chunk) => chunk.length <= 5000)).toBe(true);
    let from = 0;
    for (const chunk of primary.received) {
      const at = text.indexOf(chunk, from);
      expect(at).toBeGreaterThanOrEqual(from);
      from = at + chunk.length;
    }
    expect(result.text).toBe(text.replaceAll('o', '0'));
    expect(result.truncated).toBe(false);
  });

  it('keeps the spacing between chunks when an engine trims its answers', async () => {
    const primary = fake(
      'deepl',
      async ({ text }) => ({ text: ` ${text.replaceAll('o', '0')}\n`, truncated: false }),
      20,
    );
    const chain = createChain({ primary: primary.engine, options });

    const result = await chain.translate({
      text: 'Good morning.  Good night.\n\nSo long.',
      source: 'en',
      target: 'de',
    });

    expect(primary.received).toEqual(['Good morning.', 'Good night.', 'So long.']);
    expect(result.text).toBe('G00d m0rning.  G00d night.\n\nS0 l0ng.');
  });

  it('does not split for the fallback: one piece of at most its limit, and the result says truncated', async () => {
    const fallback = fake('mymemory', zeroes, 500);
    const chain = createChain({
      primary: fake('deepl', failing()).engine,
      fallback: fallback.engine,
      options,
    });
    const text = 'This is one sentence of the text. '.repeat(40);

    const result = await chain.translate({ text, source: 'en', target: 'de' });

    expect(fallback.received).toHaveLength(1);
    expect(fallback.received[0]?.length).toBeLessThanOrEqual(500);
    expect(text.startsWith(fallback.received[0] as string)).toBe(true);
    expect(result).toMatchObject({ engine: 'mymemory', truncated: true });
    expect(text.replaceAll('o', '0').startsWith(result.text.trimEnd())).toBe(true);
  });

  it('tries the later slots after a truncated answer and keeps the whole translation of one of them', async () => {
    const fallback = fake('mymemory', zeroes, 500);
    const apertium = fake('apertium', async ({ text }) => ({
      text: text.replaceAll('e', '3'),
      truncated: false,
    }));
    const chain = createChain({ fallback: fallback.engine, apertium: apertium.engine, options });
    const text = 'This is one sentence of the text. '.repeat(40);

    const result = await chain.translate({ text, source: 'en', target: 'de' });

    expect(result).toMatchObject({ engine: 'apertium', truncated: false, text: text.replaceAll('e', '3') });
    expect(result.attempts.map((a) => [a.slot, a.outcome])).toEqual([
      ['variant', 'skipped'],
      ['primary', 'skipped'],
      ['fallback', 'ok'],
      ['local', 'skipped'],
      ['apertium', 'ok'],
    ]);
  });

  it('keeps the truncated answer when no later slot translates the text', async () => {
    const fallback = fake('mymemory', zeroes, 500);
    const offline = fake('offline', failing());
    const chain = createChain({ fallback: fallback.engine, offline: offline.engine, options });

    const result = await chain.translate({
      text: 'Some more words. '.repeat(40),
      source: 'en',
      target: 'de',
    });

    expect(result).toMatchObject({ engine: 'mymemory', truncated: true });
    expect(offline.received).toHaveLength(1);
  });

  it('passes on the truncated flag an engine sets itself', async () => {
    const fallback = fake('mymemory', async ({ text }) => ({
      text: text.slice(0, 20).replaceAll('o', '0'),
      truncated: true,
    }));
    const chain = createChain({ fallback: fallback.engine, options });

    const result = await chain.translate({
      text: 'Hello {name}, how are you? See {link} for more.',
      source: 'en',
      target: 'de',
    });

    expect(result).toMatchObject({ engine: 'mymemory', truncated: true, text: 'Hell0 {name}, h0w are y' });
  });

  it('splits for the fallback too when its slot option says so', async () => {
    const fallback = fake('mymemory', zeroes, 40);
    const chain = createChain({
      fallback: fallback.engine,
      options: { ...options, slots: { fallback: { split: true } } },
    });

    const result = await chain.translate({
      text: 'One more sentence here. '.repeat(4),
      source: 'en',
      target: 'de',
    });

    expect(fallback.received.length).toBeGreaterThan(1);
    expect(result.truncated).toBe(false);
  });

  it('masks placeholders, URLs and tags for the engine and restores them', async () => {
    const primary = fake('deepl', zeroes);
    const chain = createChain({ primary: primary.engine, options });

    const result = await chain.translate({
      text: 'Hello {name}, open <a href="https://shop.example.com/orders">your orders</a> or mail shop@example.com.',
      source: 'en',
      target: 'de',
    });

    expect(primary.received[0]).toBe('Hello ⟦0⟧, open ⟦1⟧your orders⟦2⟧ or mail ⟦3⟧.');
    expect(result.text).toBe(
      'Hell0 {name}, 0pen <a href="https://shop.example.com/orders">y0ur 0rders</a> 0r mail shop@example.com.',
    );
  });

  it('treats a lost placeholder as that engine failing and moves on', async () => {
    const primary = fake('deepl', async ({ text }) => ({
      text: text.replace('⟦0⟧', 'Name'),
      truncated: false,
    }));
    const fallback = fake('mymemory', zeroes);
    const chain = createChain({ primary: primary.engine, fallback: fallback.engine, options });

    const result = await chain.translate({ text: 'Hello {name}, how are you?', source: 'en', target: 'de' });

    expect(result.engine).toBe('mymemory');
    expect(result.text).toBe('Hell0 {name}, h0w are y0u?');
    expect(result.attempts[1]).toMatchObject({
      slot: 'primary',
      outcome: 'failed',
      reason: 'lost protected spans ["{name}"]',
    });
  });

  it('treats a failed output check as that engine failing', async () => {
    const primary = fake('deepl', async () => ({ text: '   ', truncated: false }));
    const chain = createChain({
      primary: primary.engine,
      local: fake('libretranslate', zeroes).engine,
      options,
    });

    const result = await chain.translate(hello);

    expect(result.engine).toBe('libretranslate');
    expect(result.attempts[1]).toMatchObject({ outcome: 'failed', reason: 'empty output' });
  });

  describe('unchanged answers', () => {
    const echo: Answer = async ({ text }) => ({ text, truncated: false });
    const brand = { text: 'Coca-Cola Zero Sugar', source: 'en', target: 'es' };

    it('does not trust one engine echoing the input', async () => {
      const chain = createChain({
        primary: fake('deepl', echo).engine,
        local: fake('libretranslate', zeroes).engine,
        options,
      });

      const result = await chain.translate(brand);

      expect(result).toMatchObject({ engine: 'libretranslate', text: 'C0ca-C0la Zer0 Sugar' });
      expect(result.attempts[1]).toMatchObject({ outcome: 'failed', reason: 'unchanged from input' });
    });

    it('accepts the text unchanged when a second engine agrees', async () => {
      const chain = createChain({
        primary: fake('deepl', echo).engine,
        fallback: fake('mymemory', failing()).engine,
        local: fake('libretranslate', echo).engine,
        options,
      });

      const result = await chain.translate(brand);

      expect(result).toMatchObject({ engine: 'libretranslate', text: 'Coca-Cola Zero Sugar' });
      expect(result.attempts.at(-1)).toMatchObject({
        outcome: 'ok',
        reason: 'unchanged, as deepl also answered',
      });
    });
  });

  describe('circuit breaker', () => {
    it('reports an open breaker and does not call that engine', async () => {
      const primary = fake('deepl', failing());
      const chain = createChain({
        primary: primary.engine,
        fallback: fake('mymemory', zeroes).engine,
        options: { resilience: { ...options.resilience, breakerThreshold: 1, breakerCooldownMs: 10_000 } },
      });

      await chain.translate(hello);
      const second = await chain.translate(hello);

      expect(primary.received).toHaveLength(1);
      expect(second.attempts[1]).toMatchObject({
        slot: 'primary',
        outcome: 'breaker-open',
        reason: 'circuit breaker open',
      });
      expect(second.engine).toBe('mymemory');
      expect(chain.status()[1]?.breaker).toBe('open');
    });

    it('lets a per-slot setting override the shared one', async () => {
      const primary = fake('deepl', failing());
      const chain = createChain({
        primary: primary.engine,
        fallback: fake('mymemory', zeroes).engine,
        options: {
          ...options,
          slots: { primary: { resilience: { breakerThreshold: 1, breakerCooldownMs: 10_000 } } },
        },
      });

      await chain.translate(hello);
      await chain.translate(hello);

      expect(primary.received).toHaveLength(1);
    });
  });

  it('throws AllEnginesFailedError (503, stable code) with every attempt when nothing works', async () => {
    const chain = createChain({
      primary: fake('deepl', failing('quota')).engine,
      offline: fake('offline', failing('unsupported')).engine,
      options,
    });

    const error = await chain.translate(hello).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AllEnginesFailedError);
    const failed = error as AllEnginesFailedError;
    expect(failed).toMatchObject({ code: 'TRANSLATION_UNAVAILABLE', httpStatus: 503 });
    expect(failed.attempts.map(({ slot, outcome }) => `${slot}:${outcome}`)).toEqual([
      'variant:skipped',
      'primary:failed',
      'fallback:skipped',
      'local:skipped',
      'apertium:skipped',
      'offline:unsupported',
    ]);
    expect(failed.attempts[1]?.reason).toBe('quota: deepl: quota failure');
  });

  it('stops the whole chain when the signal aborts', async () => {
    const primary = fake(
      'deepl',
      (_request, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    const fallback = fake('mymemory', zeroes);
    const chain = createChain({ primary: primary.engine, fallback: fallback.engine, options });
    const controller = new AbortController();

    const pending = chain.translate(hello, controller.signal);
    await sleep(5);
    controller.abort(new Error('request cancelled'));

    await expect(pending).rejects.toThrow('request cancelled');
    expect(fallback.received).toEqual([]);
    expect(chain.status()[0]).toMatchObject({ failures: 0, successes: 0 });
  });

  it('does not start when the signal is already aborted', async () => {
    const primary = fake('deepl', zeroes);
    const chain = createChain({ primary: primary.engine, options });
    const controller = new AbortController();
    controller.abort(new Error('gone'));

    await expect(chain.translate(hello, controller.signal)).rejects.toThrow('gone');
    expect(primary.received).toEqual([]);
  });

  it('returns blank text as it is without asking any engine', async () => {
    const primary = fake('deepl', zeroes);
    const chain = createChain({ primary: primary.engine, options });

    await expect(chain.translate({ text: ' \n ', source: 'en', target: 'de' })).resolves.toEqual({
      text: ' \n ',
      engine: undefined,
      truncated: false,
      fallback: false,
      attempts: [],
      route: [],
    });
    expect(primary.received).toEqual([]);
  });

  it('passes on the source language an engine detected', async () => {
    const primary = fake('deepl', async ({ text }) => ({
      text: text.replaceAll('o', '0'),
      detectedSource: 'en',
      truncated: false,
    }));
    const chain = createChain({ primary: primary.engine, options });

    const result = await chain.translate({ ...hello, source: 'auto' });

    expect(result.detectedSource).toBe('en');
  });

  it('reports per engine: configured, breaker state, last error and counters', async () => {
    let fail = true;
    const primary = fake('google', async (request, signal) => {
      if (fail) throw new EngineError('google', 'rejected', 'bad request');
      return zeroes(request, signal);
    });
    const chain = createChain({ primary: primary.engine, offline: fake('offline', zeroes).engine, options });

    await chain.translate(hello);
    fail = false;
    await chain.translate(hello);

    const [variantStatus, primaryStatus, fallbackStatus, , , offlineStatus] = chain.status();
    expect(primaryStatus).toEqual({
      slot: 'primary',
      engine: 'google',
      configured: true,
      breaker: 'closed',
      lastError: { reason: 'rejected: google: bad request', at: expect.any(String) },
      successes: 1,
      failures: 1,
    });
    expect(variantStatus).toEqual({ slot: 'variant', configured: false, successes: 0, failures: 0 });
    expect(fallbackStatus).toEqual({ slot: 'fallback', configured: false, successes: 0, failures: 0 });
    expect(offlineStatus).toMatchObject({ engine: 'offline', configured: true, successes: 1, failures: 0 });
  });

  it('records calls by engine and outcome, durations and breaker state in the given registry', async () => {
    const registry = new Registry();
    const chain = createChain({
      primary: fake('deepl', failing()).engine,
      fallback: fake('mymemory', zeroes).engine,
      options: { ...options, metrics: registry },
    });

    await chain.translate(hello);

    const text = await registry.metrics();
    expect(text).toContain('translation_engine_calls_total{engine="deepl",outcome="failed"} 1');
    expect(text).toContain('translation_engine_calls_total{engine="mymemory",outcome="ok"} 1');
    expect(text).toContain(
      'translation_engine_call_duration_seconds_count{engine="mymemory",outcome="ok"} 1',
    );
    expect(text).toContain('translation_engine_breaker_state{engine="deepl"} 0');
  });

  it('records the duration of successful calls per engine and listed pair, and each breaker transition', async () => {
    const registry = new Registry();
    const chain = createChain({
      primary: fake('deepl', failing()).engine,
      fallback: fake('mymemory', zeroes).engine,
      options: {
        resilience: { ...options.resilience, breakerThreshold: 1, breakerCooldownMs: 10_000 },
        metrics: registry,
      },
    });
    await chain.directory.refresh(true);

    await chain.translate(hello);
    await chain.translate(hello);

    const text = await registry.metrics();
    expect(text).toContain(
      'translation_engine_pair_duration_seconds_count{engine="mymemory",pair="en-de"} 2',
    );
    expect(text).not.toMatch(/translation_engine_pair_duration_seconds_count\{engine="deepl"/);
    expect(text).toContain('translation_engine_breaker_transitions_total{engine="deepl",state="open"} 1');
    expect(text).not.toMatch(/translation_engine_breaker_transitions_total\{engine="mymemory"/);
  });

  it('leaves a refused pair out of the engine calls: a refusal says nothing about its health', async () => {
    const registry = new Registry();
    const chain = createChain({
      primary: fake('deepl', failing('unsupported')).engine,
      fallback: fake('mymemory', zeroes).engine,
      options: { ...options, metrics: registry },
    });

    await chain.translate(hello);

    const text = await registry.metrics();
    expect(text).toContain('translation_engine_calls_total{engine="mymemory",outcome="ok"} 1');
    expect(text).not.toMatch(/translation_engine_call\w*\{engine="deepl"/);
  });

  it('records call durations in seconds, no longer than the whole translation took', async () => {
    const registry = new Registry();
    const slow: Answer = async (request, signal) => {
      await sleep(5);
      return zeroes(request, signal);
    };
    const chain = createChain({
      primary: fake('deepl', slow).engine,
      options: { ...options, metrics: registry },
    });

    const before = performance.now();
    const result = await chain.translate(hello);
    const took = performance.now() - before;

    const text = await registry.metrics();
    const sum = /translation_engine_call_duration_seconds_sum\{engine="deepl",outcome="ok"\} (\S+)/.exec(
      text,
    );
    expect(Number(sum?.[1])).toBeGreaterThan(0);
    expect(Number(sum?.[1])).toBeLessThanOrEqual(took / 1000);
    expect(result.attempts[1]?.ms).toBeLessThanOrEqual(Math.ceil(took));
  });

  it('labels a pair the engine does not list as other, so the pair label stays bounded', async () => {
    const registry = new Registry();
    const unlisted = fake('mymemory', zeroes);
    const chain = createChain({
      fallback: { ...unlisted.engine, languagePairs: () => Promise.reject(new Error('no pair list')) },
      options: { ...options, metrics: registry },
    });
    await chain.directory.refresh(true);

    await chain.translate({ ...hello, source: 'xx', target: 'yy' });

    const text = await registry.metrics();
    expect(text).toContain(
      'translation_engine_pair_duration_seconds_count{engine="mymemory",pair="other"} 1',
    );
    expect(text).not.toContain('pair="xx-yy"');
  });
});

describe('which answer the chain keeps, and how it says so', () => {
  const echo: Answer = async ({ text }) => ({ text, truncated: false });
  const cut =
    (mark: string): Answer =>
    async ({ text }) => ({ text: `${mark} ${text.slice(0, 10)}`, truncated: true });

  it('keeps the stronger engine’s answer when every engine cut the text', async () => {
    const chain = createChain({
      primary: fake('deepl', cut('first')).engine,
      local: fake('libretranslate', cut('second')).engine,
      options,
    });

    const result = await chain.translate(hello);

    expect(result).toMatchObject({ engine: 'deepl', truncated: true, text: 'first Hello worl' });
  });

  it('does not flag an unchanged answer two engines agreed on as fallback: an echo is no failure', async () => {
    const chain = createChain({
      primary: fake('deepl', echo).engine,
      local: fake('libretranslate', echo).engine,
      options,
    });

    const result = await chain.translate({ text: 'Coca-Cola Zero Sugar', source: 'en', target: 'es' });

    expect(result).toMatchObject({ engine: 'libretranslate', fallback: false });
  });

  it('flags the answer as fallback while a stronger engine’s breaker is open', async () => {
    const chain = createChain({
      primary: fake('deepl', failing()).engine,
      fallback: fake('mymemory', zeroes).engine,
      options: { resilience: { ...options.resilience, breakerThreshold: 1, breakerCooldownMs: 10_000 } },
    });
    await chain.translate(hello);

    const second = await chain.translate(hello);

    expect(second.attempts[1]).toMatchObject({ outcome: 'breaker-open' });
    expect(second).toMatchObject({ engine: 'mymemory', fallback: true });
  });

  it('reports each attempt’s time in whole milliseconds', async () => {
    const chain = createChain({
      primary: fake('deepl', failing()).engine,
      fallback: fake('mymemory', zeroes).engine,
      options,
    });

    const result = await chain.translate(hello);

    expect(result.attempts.map(({ ms }) => Number.isInteger(ms))).toEqual([true, true, true]);
  });

  it('does not flag the whole answer as fallback when a stronger engine only cut the text or refused the pair', async () => {
    const chain = createChain({
      primary: fake('deepl', failing('unsupported')).engine,
      fallback: fake('mymemory', zeroes, 500).engine,
      apertium: fake('apertium', zeroes).engine,
      options,
    });

    const result = await chain.translate({
      text: 'Some more words. '.repeat(40),
      source: 'en',
      target: 'de',
    });

    expect(result.attempts.map(({ outcome }) => outcome)).toEqual([
      'skipped',
      'unsupported',
      'ok',
      'skipped',
      'ok',
    ]);
    expect(result).toMatchObject({ engine: 'apertium', truncated: false, fallback: false });
  });
});
