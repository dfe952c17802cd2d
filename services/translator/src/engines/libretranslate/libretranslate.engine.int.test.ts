import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import {
  AUTO_BATCH,
  AUTO_BATCH_ITEMS,
  describeTransportFaults,
  expectEngineFailure,
  HI,
  never,
  translateOne,
} from '@tp/test/doubles/engine-test-kit';
import {
  libreTranslateFaults,
  startLibreTranslateDouble,
  type LibreTranslateDouble,
  type LibreTranslateDoubleOptions,
} from '@tp/test/doubles/libretranslate.double';
import type { EngineFailureKind, TranslationEngine } from '../engine.js';
import { createLibreTranslateEngine, type LibreTranslateOptions } from './libretranslate.engine.js';

const failure = (promise: Promise<unknown>, kind: EngineFailureKind) =>
  expectEngineFailure(promise, 'libretranslate', kind);

/** Runs `body` against a double started with `options`, closing it afterwards. */
async function withDouble(
  options: LibreTranslateDoubleOptions,
  engineOptions: Omit<LibreTranslateOptions, 'baseUrl'>,
  body: (engine: TranslationEngine, double: LibreTranslateDouble) => Promise<void>,
): Promise<void> {
  const double = await startLibreTranslateDouble(options);
  try {
    await body(createLibreTranslateEngine({ ...engineOptions, baseUrl: double.url }), double);
  } finally {
    await double.close();
  }
}

describe('LibreTranslate engine', () => {
  let double: LibreTranslateDouble;
  let engine: TranslationEngine;
  const translations = () => double.requests.filter((r) => r.path === '/translate');

  beforeAll(async () => {
    double = await startLibreTranslateDouble();
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.reset();
    double.unban();
    engine = createLibreTranslateEngine({ baseUrl: double.url });
  });

  describe('success', () => {
    it('sends the texts of a call as one q array and answers each in order, with the language found', async () => {
      expect(await engine.translate(AUTO_BATCH, never)).toEqual(AUTO_BATCH_ITEMS);
      expect(translations()).toHaveLength(1);
      expect(translations()[0]?.body).toMatchObject({ q: AUTO_BATCH.texts, source: 'auto' });
      const limited = createLibreTranslateEngine({ baseUrl: double.url, maxChars: 2000, maxTexts: 8 });
      expect([engine.batch, limited.batch]).toEqual([
        { maxTexts: 50, maxChars: 5000 },
        { maxTexts: 8, maxChars: 2000 },
      ]);
    });

    it('reads /languages once, then posts q, source, target and format text', async () => {
      const first = await translateOne(engine, { text: 'Good morning', source: 'en', target: 'de' }, never);
      await translateOne(engine, { text: 'Thank you', source: 'en', target: 'fr' }, never);

      expect(first).toEqual({ text: 'Guten Morgen', truncated: false });
      expect(double.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /languages',
        'POST /translate',
        'POST /translate',
      ]);
      expect(translations()[0]?.body).toEqual({
        q: ['Good morning'],
        source: 'en',
        target: 'de',
        format: 'text',
      });
    });

    it.each([
      ['zh-CN', 'zh-Hans', '谢谢'],
      ['zh-TW', 'zh-Hant', '謝謝'],
    ])('sends %s as %s to an instance with current codes', async (target, code, text) => {
      const result = await translateOne(engine, { text: 'Thank you', source: 'en', target }, never);

      expect(result.text).toBe(text);
      expect(translations()[0]?.body).toMatchObject({ target: code });
    });

    it('sends zh-CN as zh and zh-TW as zt to an instance with legacy codes', async () => {
      await withDouble({ codes: 'legacy' }, {}, async (legacy, legacyDouble) => {
        const simplified = await translateOne(
          legacy,
          { text: 'Thank you', source: 'en', target: 'zh-CN' },
          never,
        );
        const traditional = await translateOne(
          legacy,
          { text: 'Thank you', source: 'en', target: 'zh-TW' },
          never,
        );

        expect([simplified.text, traditional.text]).toEqual(['谢谢', '謝謝']);
        const targets = legacyDouble.requests.filter((r) => r.path === '/translate').map((r) => r.body);
        expect(targets).toMatchObject([{ target: 'zh' }, { target: 'zt' }]);
      });
    });

    it('sends pt-BR as pb', async () => {
      const result = await translateOne(
        engine,
        { text: 'The bus is late', source: 'en', target: 'pt-BR' },
        never,
      );

      expect(result.text).toBe('O ônibus está atrasado');
      expect(translations()[0]?.body).toMatchObject({ target: 'pb' });
    });

    it('sends source auto and reports the detected language as our code', async () => {
      const result = await translateOne(engine, { text: '謝謝', source: 'auto', target: 'en' }, never);

      expect(result).toEqual({ text: 'Thank you', detectedSource: 'zh-TW', truncated: false });
      expect(translations()[0]?.body).toMatchObject({ source: 'auto' });
    });

    it('maps a legacy detected code (zh) back to zh-CN', async () => {
      await withDouble({ codes: 'legacy' }, {}, async (legacy) => {
        const result = await translateOne(legacy, { text: '谢谢', source: 'auto', target: 'en' }, never);
        expect(result.detectedSource).toBe('zh-CN');
      });
    });

    it('sends the API key in the body when configured', async () => {
      await withDouble(
        { apiKeys: ['k-1'], requireApiKey: true },
        { apiKey: 'k-1' },
        async (keyed, keyedDouble) => {
          await translateOne(keyed, { text: 'Good morning', source: 'en', target: 'de' }, never);
          expect(keyedDouble.requests.at(-1)?.body).toMatchObject({ api_key: 'k-1' });
        },
      );
    });

    it('announces 5000 characters by default and the configured limit otherwise', () => {
      expect(engine.maxChars).toBe(5000);
      expect(createLibreTranslateEngine({ baseUrl: double.url, maxChars: 2000 }).maxChars).toBe(2000);
    });
  });

  describe('unsupported pairs', () => {
    it('refuses a language the instance does not list, without posting /translate', async () => {
      await failure(
        translateOne(engine, { text: 'Hello', source: 'en', target: 'ko' }, never),
        'unsupported',
      );
      expect(translations()).toHaveLength(0);
    });

    it("refuses a target missing from the source's targets in /languages (ja -> de)", async () => {
      await failure(
        translateOne(engine, { text: 'ありがとう', source: 'ja', target: 'de' }, never),
        'unsupported',
      );
      expect(translations()).toHaveLength(0);
    });

    it('reports a 400 "... is not supported" as unsupported and reads /languages again next time', async () => {
      double.fail(
        { type: 'respond', status: 400, body: { error: 'de is not supported' } },
        { path: '/translate' },
      );

      await failure(translateOne(engine, HI, never), 'unsupported');
      await translateOne(engine, HI, never);
      expect(double.requests.filter((r) => r.path === '/languages')).toHaveLength(2);
    });

    it('reports the auto-detected source LibreTranslate cannot translate from as unsupported', async () => {
      const err = await failure(
        translateOne(engine, { text: 'ありがとう', source: 'auto', target: 'de' }, never),
        'unsupported',
      );
      expect(err.message).toContain('is not available as a target language from');
    });
  });

  describe('errors', () => {
    it('rejects a request without text (400 missing q)', async () => {
      const err = await failure(
        engine.translate({ texts: [], source: 'en', target: 'de' }, never),
        'rejected',
      );
      expect(err.message).toContain('Invalid request: missing q parameter');
    });

    it('rejects text over the instance char limit (400)', async () => {
      await withDouble({ charLimit: 10 }, {}, async (limited) => {
        const err = await failure(
          translateOne(limited, { text: 'Hello there, world', source: 'en', target: 'de' }, never),
          'rejected',
        );
        expect(err.message).toContain('exceeds text limit (10)');
      });
    });

    it('rejects a missing API key the instance requires (400)', async () => {
      await withDouble({ apiKeys: ['k-1'], requireApiKey: true }, {}, async (keyless) => {
        const err = await failure(translateOne(keyless, HI, never), 'rejected');
        expect(err.message).toContain('HTTP 400');
        expect(err.message).toContain('API key');
      });
    });

    it('rejects an invalid API key (403)', async () => {
      await withDouble({ apiKeys: ['k-1'] }, { apiKey: 'stolen' }, async (wrong) => {
        const err = await failure(translateOne(wrong, HI, never), 'rejected');
        expect(err.message).toContain('Invalid API key');
      });
    });

    it('reports a flood ban (403 Too many request limits violations) as quota', async () => {
      double.ban();
      await failure(translateOne(engine, HI, never), 'quota');
    });

    it('reports 429 Slowdown as transient', async () => {
      await withDouble({ requestsPerMinute: 1 }, {}, async (limited) => {
        await translateOne(limited, HI, never);

        const err = await failure(translateOne(limited, HI, never), 'transient');
        expect(err.message).toContain('Slowdown: 1 per 1 minute');
        expect(err.retryAfterMs).toBeUndefined();
      });
    });

    it('takes retryAfterMs from a Retry-After header on 429', async () => {
      double.fail(libreTranslateFaults.slowDown(30, 12), { path: '/translate' });

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(12_000);
    });

    it('reports 500 Cannot translate text as transient', async () => {
      double.fail(libreTranslateFaults.cannotTranslate(), { path: '/translate' });
      await failure(translateOne(engine, HI, never), 'transient');
    });

    it('classifies a failing /languages like any other call (503 transient, 404 rejected)', async () => {
      double.fail({ type: 'respond', status: 503, body: 'Service Unavailable' }, { path: '/languages' });
      await failure(translateOne(engine, HI, never), 'transient');

      const misrouted = createLibreTranslateEngine({ baseUrl: `${double.url}/wrong-prefix` });
      await failure(translateOne(misrouted, HI, never), 'rejected');
    });

    it('rejects a 200 without translatedText', async () => {
      double.fail({ type: 'respond', status: 200, body: { result: 'Hallo' } }, { path: '/translate' });
      await failure(translateOne(engine, HI, never), 'rejected');
    });
  });

  describeTransportFaults('libretranslate', {
    makeEngine: (baseUrl) => createLibreTranslateEngine({ baseUrl }),
    double: () => double,
    paths: ['/languages', '/translate'],
  });
});
