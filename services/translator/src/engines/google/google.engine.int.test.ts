import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import {
  googleError,
  googleFaults,
  startGoogleDouble,
  type GoogleDouble,
} from '@tp/test/doubles/google.double';
import {
  AUTO_BATCH,
  AUTO_BATCH_ITEMS,
  describeTransportFaults,
  expectEngineFailure,
  HI,
  never,
  translateOne,
} from '@tp/test/doubles/engine-test-kit';
import type { EngineFailureKind, TranslationEngine } from '../engine.js';
import { createGoogleEngine } from './google.engine.js';

const KEY = 'google-key';

const failure = (promise: Promise<unknown>, kind: EngineFailureKind) =>
  expectEngineFailure(promise, 'google', kind);

describe('Google engine', () => {
  let double: GoogleDouble;
  let engine: TranslationEngine;

  beforeAll(async () => {
    double = await startGoogleDouble({ apiKey: KEY });
    engine = createGoogleEngine({ apiKey: KEY, baseUrl: double.url });
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.reset();
    double.restoreQuota();
  });

  describe('language pairs', () => {
    it('reads /language/translate/v2/languages into every listed language into every other', async () => {
      const pairs = await engine.languagePairs(never);

      expect(pairs.serves('zh-CN', 'ca')).toBe(true);
      expect(pairs.serves('auto', 'he')).toBe(true);
      expect(pairs.serves('en', 'km')).toBe(false);
      expect(double.requests.map((r) => r.path)).toEqual(['/language/translate/v2/languages']);
    });
  });

  describe('success', () => {
    it('sends the texts of a call as one q array and answers each in order, with the language found', async () => {
      expect(await engine.translate(AUTO_BATCH, never)).toEqual(AUTO_BATCH_ITEMS);
      expect(double.requests).toHaveLength(1);
      expect(double.requests[0]?.body).toEqual({ q: AUTO_BATCH.texts, target: 'fr', format: 'text' });
      expect(engine.batch).toEqual({ maxTexts: 128, maxChars: 5000 });
    });

    it('posts q, target, source and format text with the key in the X-goog-api-key header, never the URL', async () => {
      const result = await translateOne(engine, { text: 'Good morning', source: 'en', target: 'de' }, never);

      expect(result).toEqual({ text: 'Guten Morgen', truncated: false });
      const [request] = double.requests;
      expect(request).toMatchObject({ method: 'POST', path: '/language/translate/v2', query: {} });
      expect(request?.headers['x-goog-api-key']).toBe(KEY);
      expect(request?.body).toEqual({ q: ['Good morning'], target: 'de', source: 'en', format: 'text' });
    });

    it('keeps zh-CN and zh-TW as Google codes', async () => {
      const simplified = await translateOne(
        engine,
        { text: 'Thank you', source: 'en', target: 'zh-CN' },
        never,
      );
      const traditional = await translateOne(
        engine,
        { text: 'Thank you', source: 'en', target: 'zh-TW' },
        never,
      );

      expect([simplified.text, traditional.text]).toEqual(['谢谢', '謝謝']);
      expect(double.requests.map((r) => (r.body as { target: string }).target)).toEqual(['zh-CN', 'zh-TW']);
    });

    it('maps pt-BR to pt and en-GB to en', async () => {
      const result = await translateOne(
        engine,
        { text: 'Unknown phrase', source: 'en-GB', target: 'pt-BR' },
        never,
      );

      expect(result.text).toBe('[pt] Unknown phrase');
      expect(double.requests[0]?.body).toMatchObject({ source: 'en', target: 'pt' });
    });

    it('omits source for auto and reports the detected source as our code', async () => {
      const result = await translateOne(engine, { text: '謝謝', source: 'auto', target: 'en' }, never);

      expect(result).toEqual({ text: 'Thank you', detectedSource: 'zh-TW', truncated: false });
      expect(double.requests[0]?.body).not.toHaveProperty('source');
    });

    it("maps Google's legacy detected code iw back to he", async () => {
      double.fail({
        type: 'respond',
        status: 200,
        body: { data: { translations: [{ translatedText: 'Shalom', detectedSourceLanguage: 'iw' }] } },
      });

      const result = await translateOne(engine, { text: 'שלום', source: 'auto', target: 'en' }, never);
      expect(result.detectedSource).toBe('he');
    });

    it('asks for format text, so an apostrophe comes back unescaped', async () => {
      const result = await translateOne(
        engine,
        { text: 'The bus is late', source: 'en', target: 'fr' },
        never,
      );

      expect(result.text).toBe("L'autobus est en retard");
    });

    it('decodes HTML entities even when Google escapes the output anyway', async () => {
      double.fail({
        type: 'respond',
        status: 200,
        body: {
          data: { translations: [{ translatedText: 'L&#39;autobus &amp; le &quot;train&quot; &lt;3' }] },
        },
      });

      const result = await translateOne(engine, { text: 'The bus', source: 'en', target: 'fr' }, never);
      expect(result.text).toBe('L\'autobus & le "train" <3');
    });

    it('announces a 5000-character limit', () => {
      expect(engine.maxChars).toBe(5000);
    });
  });

  describe('unsupported pairs', () => {
    it.each([
      ['en', 'xx'],
      ['tlh', 'en'],
      ['en', 'auto'],
    ])('refuses %s -> %s without calling Google', async (source, target) => {
      await failure(translateOne(engine, { text: 'Hello', source, target }, never), 'unsupported');
      expect(double.requests).toHaveLength(0);
    });
  });

  describe('errors', () => {
    it('rejects a request without a key (403 PERMISSION_DENIED), keeping the message', async () => {
      const keyless = createGoogleEngine({ apiKey: '', baseUrl: double.url });

      const err = await failure(translateOne(keyless, HI, never), 'rejected');
      expect(err.message).toContain('The request is missing a valid API key.');
    });

    it('rejects a wrong key (400)', async () => {
      const wrong = createGoogleEngine({ apiKey: 'nope', baseUrl: double.url });

      const err = await failure(translateOne(wrong, HI, never), 'rejected');
      expect(err.message).toContain('API key not valid');
    });

    it.each(['dailyLimitExceeded', 'userRateLimitExceeded'] as const)(
      'reports a 403 with reason %s as quota',
      async (reason) => {
        double.exhaustQuota(reason);
        await failure(translateOne(engine, HI, never), 'quota');
      },
    );

    it('reports a 403 whose message says Daily Limit Exceeded as quota even without a reason', async () => {
      double.fail({
        type: 'respond',
        status: 403,
        body: { error: { code: 403, message: 'Daily Limit Exceeded', errors: [] } },
      });
      await failure(translateOne(engine, HI, never), 'quota');
    });

    it('rejects other 403s (API not enabled)', async () => {
      double.fail({
        type: 'respond',
        status: 403,
        body: googleError(
          403,
          'Cloud Translation API has not been used',
          'accessNotConfigured',
          'PERMISSION_DENIED',
        ),
      });
      await failure(translateOne(engine, HI, never), 'rejected');
    });

    it.each([
      [400, 'Invalid Value'],
      [404, 'Not Found'],
      [413, 'Request payload size exceeds the limit'],
    ])('rejects a %i', async (status, message) => {
      double.fail({
        type: 'respond',
        status,
        body: googleError(status, message, 'invalid', 'INVALID_ARGUMENT'),
      });

      const err = await failure(translateOne(engine, HI, never), 'rejected');
      expect(err.message).toContain(message);
    });

    it('reports 429 as transient with Retry-After in milliseconds', async () => {
      double.fail(googleFaults.rateLimited(3));

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(3000);
    });

    it('reports 500 and 503 as transient', async () => {
      double.fail(googleFaults.backendError());
      double.fail(googleFaults.unavailable(1));

      await failure(translateOne(engine, HI, never), 'transient');
      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(1000);
    });

    it('rejects a 200 without translations', async () => {
      double.fail({ type: 'respond', status: 200, body: { data: { translations: [] } } });
      await failure(translateOne(engine, HI, never), 'rejected');
    });
  });

  describeTransportFaults('google', {
    makeEngine: (baseUrl) => createGoogleEngine({ apiKey: KEY, baseUrl }),
    double: () => double,
    secrets: [KEY],
  });
});
