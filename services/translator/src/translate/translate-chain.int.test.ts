import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { deeplFaults, startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
import { field } from '@tp/test/doubles/http-double';
import {
  libreTranslateFaults,
  startLibreTranslateDouble,
  type LibreTranslateDouble,
} from '@tp/test/doubles/libretranslate.double';
import { mymemoryFaults, startMyMemoryDouble, type MyMemoryDouble } from '@tp/test/doubles/mymemory.double';
import {
  startTestTranslator,
  tinyModelsDir,
  waitForBreakers,
  type TestTranslator,
} from '../../test/translator-fixture.js';
import type { TranslationResult } from './translate-text.js';

interface ErrorBody {
  code: number;
  error: string;
  message: string;
  details?: { attempts: { slot: string; engine?: string; outcome: string; reason?: string }[] };
  request_id: string;
}

/** The texts DeepL received, in order, from the recorded requests. */
/** OpenCC, first in the chain by default, serves none of these pairs: listed, never called. */
const NOT_CHINESE = expect.objectContaining({ slot: 'variant', engine: 'opencc', outcome: 'unsupported' });

/** Every text DeepL was sent, in order (the chunks of a long text travel in one request). */
const deeplTexts = (deepl: DeepLDouble): string[] =>
  deepl.requests.flatMap((request) => field(request.body, 'text') as string[]);

describe('POST /translate through the whole chain (DeepL, MyMemory, LibreTranslate, offline)', () => {
  let deepl: DeepLDouble;
  let mymemory: MyMemoryDouble;
  let libre: LibreTranslateDouble;
  let models: Awaited<ReturnType<typeof tinyModelsDir>>;
  let translator: TestTranslator;

  beforeAll(async () => {
    [deepl, mymemory, libre, models] = await Promise.all([
      startDeepLDouble(),
      startMyMemoryDouble(),
      startLibreTranslateDouble(),
      tinyModelsDir(),
    ]);
    translator = await startTestTranslator({
      PRIMARY_ENGINE: 'deepl',
      PRIMARY_ENGINE_KEY: 'test-key:fx',
      PRIMARY_ENGINE_URL: deepl.url,
      MYMEMORY_URL: mymemory.url,
      LIBRETRANSLATE_URL: libre.url,
      ...models.settings,
      // Only quotas open a breaker here, so that the retries of one test do not open it for the next.
      BREAKER_THRESHOLD: '1000',
    });
  });

  afterAll(async () => {
    await translator?.close();
    await Promise.all([deepl?.close(), mymemory?.close(), libre?.close(), models?.remove()]);
  });

  beforeEach(async () => {
    await waitForBreakers(translator, ['closed']);
    for (const double of [deepl, mymemory, libre]) double.reset();
  });

  it('answers with the primary engine when it is healthy, and says so', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: 'Good morning',
      source: 'en',
      target: 'de',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      translatedText: 'Guten Morgen',
      source: 'en',
      target: 'de',
      engine: 'deepl',
      cached: false,
      truncated: false,
    });
    expect(body.attempts).toEqual([
      NOT_CHINESE,
      expect.objectContaining({ slot: 'primary', engine: 'deepl', outcome: 'ok' }),
    ]);
    expect(mymemory.requests).toHaveLength(0);
  });

  it('falls through to MyMemory when DeepL is out of quota (456), and tries DeepL again after the cooldown', async () => {
    deepl.exhaustQuota();
    const { status, body } = await translator.translate<TranslationResult>({
      text: 'Thank you',
      source: 'en',
      target: 'fr',
    });
    expect(status).toBe(200);
    expect(body.engine).toBe('mymemory');
    expect(body.translatedText).toBe('Merci');
    expect(body.attempts).toEqual([
      NOT_CHINESE,
      expect.objectContaining({ slot: 'primary', engine: 'deepl', outcome: 'failed' }),
      expect.objectContaining({ slot: 'fallback', engine: 'mymemory', outcome: 'ok' }),
    ]);
    expect(body.attempts[1]?.reason).toMatch(/^quota: deepl: .*Quota for this billing period/);

    // A quota opens DeepL's breaker at once; after the cooldown (100 ms here) a trial call goes through.
    deepl.resetQuota();
    await waitForBreakers(translator, ['closed', 'half-open']);
    const again = await translator.translate<TranslationResult>({
      text: 'Good morning',
      source: 'en',
      target: 'fr',
    });
    expect(again.body).toMatchObject({ engine: 'deepl', translatedText: 'Bonjour' });
  });

  it('falls through to LibreTranslate when DeepL answers 5xx after its retries and MyMemory fails too', async () => {
    deepl.fail(deeplFaults.internalError(), { times: 3 }); // the first call and 2 retries
    mymemory.fail(mymemoryFaults.serverError(503), { times: 2 }); // the first call and 1 retry
    const { status, body } = await translator.translate<TranslationResult>({
      text: 'The bus is late',
      source: 'en',
      target: 'es',
    });
    expect(status).toBe(200);
    expect(body.engine).toBe('libretranslate');
    expect(body.translatedText).toBe('El autobús llega tarde');
    expect(body.attempts.map((a) => [a.slot, a.engine, a.outcome])).toEqual([
      ['variant', 'opencc', 'unsupported'],
      ['primary', 'deepl', 'failed'],
      ['fallback', 'mymemory', 'failed'],
      ['local', 'libretranslate', 'ok'],
    ]);
    expect(body.attempts[1]?.reason).toBe('transient: deepl: HTTP 500: Internal server error');
    expect(body.attempts[2]?.reason).toMatch(/^transient: mymemory: HTTP 503/);
    expect(deepl.requests).toHaveLength(3);
  });

  it('falls through to the offline model when every online engine fails', async () => {
    deepl.fail(deeplFaults.unavailable(), { times: 3 });
    mymemory.fail(mymemoryFaults.serverError(502), { times: 2 });
    libre.fail(libreTranslateFaults.cannotTranslate(), { times: 2, path: '/translate' });
    const { status, body } = await translator.translate<TranslationResult>({
      text: '你好，世界',
      source: 'zh-CN',
      target: 'en',
    });
    expect(status).toBe(200);
    expect(body.engine).toBe('offline');
    expect(body.translatedText).toBe('hello, world');
    expect(body.attempts.map((a) => [a.slot, a.outcome])).toEqual([
      ['variant', 'unsupported'],
      ['primary', 'failed'],
      ['fallback', 'failed'],
      ['local', 'failed'],
      ['apertium', 'skipped'],
      ['offline', 'ok'],
    ]);
    expect(body.attempts[2]?.reason).toMatch(/^transient: mymemory: HTTP 502/);
    expect(body.attempts[3]?.reason).toMatch(/^transient: libretranslate: HTTP 500: Cannot translate text/);
  });

  it('answers 503 TRANSLATION_UNAVAILABLE (50302) with details.attempts when every engine fails', async () => {
    deepl.fail(deeplFaults.internalError(), { times: 3 });
    mymemory.fail(mymemoryFaults.serverError(503), { times: 2 });
    libre.fail(libreTranslateFaults.cannotTranslate(), { times: 2, path: '/translate' });
    // The offline model only knows zh -> en.
    const { status, body, headers } = await translator.translate<ErrorBody>({
      text: 'See you tomorrow at the station',
      source: 'en',
      target: 'fr',
    });
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 50302, error: 'TRANSLATION_UNAVAILABLE' });
    expect(body.request_id).toBe(headers.get('x-request-id'));
    expect(body.details?.attempts).toEqual([
      NOT_CHINESE,
      expect.objectContaining({ slot: 'primary', engine: 'deepl', outcome: 'failed' }),
      expect.objectContaining({ slot: 'fallback', engine: 'mymemory', outcome: 'failed' }),
      expect.objectContaining({ slot: 'local', engine: 'libretranslate', outcome: 'failed' }),
      expect.objectContaining({ slot: 'apertium', outcome: 'skipped' }),
      expect.objectContaining({ slot: 'offline', engine: 'offline', outcome: 'unsupported' }),
    ]);
    // The kind of each failure, never the engine's own message.
    expect(body.details?.attempts.map((a) => a.reason)).toEqual([
      'no opencc pair for en -> fr',
      'transient',
      'transient',
      'transient',
      'not configured',
      'no offline pair for en -> fr',
    ]);
  });

  it('sends a 12,000-character text to DeepL as ordered chunks of at most 5000 characters and joins them in order', async () => {
    const sentences = Array.from(
      { length: 400 },
      (_, i) => `Sentence ${String(i).padStart(4, '0')} of the report.`,
    );
    const text = sentences.join(' ').padEnd(12_000, ' More.');
    expect(text.length).toBeGreaterThanOrEqual(12_000);
    const { status, body } = await translator.translate<TranslationResult>({
      text,
      source: 'en',
      target: 'de',
    });
    expect(status).toBe(200);
    expect(body.engine).toBe('deepl');

    const chunks = deeplTexts(deepl);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(5000);
    // Every character went to DeepL exactly once, in order (the spaces between chunks stay with us).
    expect(chunks.join(' ')).toBe(text);
    // The double answers "[DE] <chunk>": the answer is the chunks' answers in the same order.
    expect(body.translatedText).toBe(chunks.map((chunk) => `[DE] ${chunk}`).join(' '));
    const positions = ['Sentence 0000', 'Sentence 0200', 'Sentence 0399'].map((s) =>
      body.translatedText.indexOf(s),
    );
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(positions[0]).toBeGreaterThanOrEqual(0);
  });

  it('flags a text MyMemory cut at 500 characters as truncated, and does not cache it', async () => {
    // DeepL has no Catalan, so MyMemory gets the text without DeepL being called at all.
    const text = Array.from({ length: 30 }, (_, i) => `Aquesta és la frase número ${i}.`).join(' ');
    expect(text.length).toBeGreaterThan(500);
    const request = { text, source: 'ca', target: 'en' };

    const first = await translator.translate<TranslationResult>(request);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ engine: 'mymemory', truncated: true, cached: false });
    expect(first.body.attempts[1]).toMatchObject({
      outcome: 'unsupported',
      reason: 'no deepl pair for ca -> en',
    });
    expect(first.body.translatedText.length).toBeLessThan(text.length);
    expect(mymemory.requests).toHaveLength(1);
    expect((mymemory.requests[0]?.query.q ?? '').length).toBeLessThanOrEqual(500);

    const second = await translator.translate<TranslationResult>(request);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ engine: 'mymemory', truncated: true, cached: false });
    expect(mymemory.requests).toHaveLength(2);
  });

  it('keeps placeholders, URLs and HTML tags intact through a translation', async () => {
    const text =
      'Hello {name}, you have %s new messages at https://example.com/inbox?id=5 — <b>open</b> them.';
    const { status, body } = await translator.translate<TranslationResult>({
      text,
      source: 'en',
      target: 'de',
    });
    expect(status).toBe(200);
    expect(body.engine).toBe('deepl');
    // DeepL never saw them: they travel as tokens and are put back afterwards.
    const sent = deeplTexts(deepl)[0] ?? '';
    for (const span of ['{name}', '%s', 'https://example.com', '<b>', '</b>']) {
      expect(sent).not.toContain(span);
      expect(body.translatedText).toContain(span);
    }
    expect(body.translatedText).toBe(
      '[DE] Hello {name}, you have %s new messages at https://example.com/inbox?id=5 — <b>open</b> them.',
    );
  });

  it('detects the source for auto itself when the text says enough, and tells the engine', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: 'Der Bus hat Verspätung, und niemand weiß warum.',
      source: 'auto',
      target: 'en',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ source: 'de', detectedSource: 'de', engine: 'deepl' });
    expect(field(deepl.requests[0]?.body, 'source_lang')).toBe('DE');
  });

  it('lets the engine detect auto when the text is too short to tell, and reports its answer', async () => {
    const { status, body } = await translator.translate<TranslationResult>({
      text: 'Hello, world!',
      source: 'auto',
      target: 'de',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ translatedText: 'Hallo, Welt!', source: 'en', detectedSource: 'en' });
    expect(field(deepl.requests[0]?.body, 'source_lang')).toBeUndefined();
  });

  it('reports each slot on GET /engines: configured engine, breaker, counters', async () => {
    const { status, body } = await translator.get<{
      engines: { slot: string; engine?: string; configured: boolean; breaker?: string; successes: number }[];
      offlineModels: { name: string; testModel: boolean }[];
    }>('/engines');
    expect(status).toBe(200);
    expect(body.engines.map((e) => [e.slot, e.engine, e.configured])).toEqual([
      ['variant', 'opencc', true],
      ['primary', 'deepl', true],
      ['fallback', 'mymemory', true],
      ['local', 'libretranslate', true],
      ['apertium', undefined, false],
      ['offline', 'offline', true],
    ]);
    expect(body.engines[1]?.successes).toBeGreaterThan(0);
    const configured = body.engines.filter((e) => e.configured);
    expect(configured.every((e) => ['closed', 'half-open', 'open'].includes(e.breaker ?? ''))).toBe(true);
    expect(body.offlineModels).toEqual([
      expect.objectContaining({ name: 'opus-mt-zh-en-tiny', testModel: true }),
    ]);
  });
});
