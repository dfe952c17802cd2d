import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { deeplFaults, startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
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
import { createDeepLEngine, deeplBaseUrl } from './deepl.engine.js';

const KEY = 'secret-key:fx';

const failure = (promise: Promise<unknown>, kind: EngineFailureKind) =>
  expectEngineFailure(promise, 'deepl', kind);

describe('DeepL engine', () => {
  let double: DeepLDouble;
  let engine: TranslationEngine;

  beforeAll(async () => {
    double = await startDeepLDouble({ authKey: KEY });
    engine = createDeepLEngine({ authKey: KEY, baseUrl: double.url });
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.reset();
    double.resetQuota();
  });

  describe('language pairs', () => {
    it('reads the source and target lists of /v2/languages into the pairs it serves', async () => {
      const pairs = await engine.languagePairs(never);

      expect(pairs.serves('en', 'de')).toBe(true);
      expect(pairs.serves('zh-TW', 'pt')).toBe(true);
      expect(pairs.serves('en', 'zh-TW')).toBe(true);
      expect(pairs.serves('auto', 'ja')).toBe(true);
      expect(pairs.serves('en', 'ca')).toBe(false);
      expect(pairs.serves('ca', 'en')).toBe(false);
      expect(double.requests.map((r) => `${r.method} ${r.path}?type=${r.query.type}`).sort()).toEqual([
        'GET /v2/languages?type=source',
        'GET /v2/languages?type=target',
      ]);
    });
  });

  describe('success', () => {
    it('sends the texts of a call as one text array and answers each in order, with the language found', async () => {
      expect(await engine.translate(AUTO_BATCH, never)).toEqual(AUTO_BATCH_ITEMS);
      expect(double.requests).toHaveLength(1);
      expect(double.requests[0]?.body).toEqual({ text: AUTO_BATCH.texts, target_lang: 'FR' });
      expect(engine.batch).toEqual({ maxTexts: 50, maxChars: 20_000 });
    });

    it('posts the text as JSON with the DeepL-Auth-Key header and returns the translation', async () => {
      const result = await translateOne(engine, { text: 'Good morning', source: 'en', target: 'de' }, never);

      expect(result).toEqual({ text: 'Guten Morgen', detectedSource: 'en', truncated: false });
      const [request] = double.requests;
      expect(request).toMatchObject({ method: 'POST', path: '/v2/translate' });
      expect(request?.headers.authorization).toBe(`DeepL-Auth-Key ${KEY}`);
      expect(request?.headers['content-type']).toBe('application/json');
      expect(request?.body).toEqual({ text: ['Good morning'], target_lang: 'DE', source_lang: 'EN' });
    });

    it('sends a bare source code and a variant target code (zh-CN -> ZH, en -> EN-US)', async () => {
      const result = await translateOne(engine, { text: '早上好', source: 'zh-CN', target: 'en' }, never);

      expect(result.text).toBe('Good morning');
      expect(double.requests[0]?.body).toMatchObject({ source_lang: 'ZH', target_lang: 'EN-US' });
    });

    it.each([
      ['zh-CN', 'ZH-HANS'],
      ['zh-TW', 'ZH-HANT'],
      ['pt-BR', 'PT-BR'],
      ['pt', 'PT-PT'],
      ['en-GB', 'EN-GB'],
      ['de-AT', 'DE'],
    ])('maps target %s to %s', async (target, code) => {
      const result = await translateOne(engine, { text: 'Unknown phrase', source: 'en', target }, never);

      expect(result.text).toBe(`[${code}] Unknown phrase`);
      expect(double.requests[0]?.body).toMatchObject({ target_lang: code });
    });

    it('omits source_lang for auto and reports the detected source as our code', async () => {
      const result = await translateOne(engine, { text: '谢谢', source: 'auto', target: 'en-US' }, never);

      expect(result).toEqual({ text: 'Thank you', detectedSource: 'zh-CN', truncated: false });
      expect(double.requests[0]?.body).not.toHaveProperty('source_lang');
    });

    it('picks the Free API host for :fx keys and the Pro host otherwise', () => {
      expect(deeplBaseUrl('abc:fx')).toBe('https://api-free.deepl.com');
      expect(deeplBaseUrl('abc')).toBe('https://api.deepl.com');
    });

    it('announces a 5000-character limit', () => {
      expect(engine.maxChars).toBe(5000);
    });
  });

  describe('unsupported pairs', () => {
    it.each([
      ['en', 'xx'],
      ['sw', 'en'],
      ['en', 'auto'],
    ])('refuses %s -> %s without calling DeepL', async (source, target) => {
      await failure(translateOne(engine, { text: 'Hello', source, target }, never), 'unsupported');
      expect(double.requests).toHaveLength(0);
    });

    it("classifies DeepL's 400 `Value for 'target_lang' not supported.` as unsupported", async () => {
      double.fail({
        type: 'respond',
        status: 400,
        body: { message: "Value for 'target_lang' not supported." },
      });

      const err = await failure(translateOne(engine, HI, never), 'unsupported');
      expect(err.message).toContain("'target_lang' not supported");
    });
  });

  describe('errors', () => {
    it('rejects other 400 bad requests, keeping the message', async () => {
      double.fail({ type: 'respond', status: 400, body: { message: "Parameter 'text' not specified." } });

      const err = await failure(translateOne(engine, HI, never), 'rejected');
      expect(err.message).toContain("Parameter 'text' not specified.");
    });

    it('rejects a bad key (403 with an empty body)', async () => {
      const badKey = createDeepLEngine({ authKey: 'wrong', baseUrl: double.url });

      const err = await failure(translateOne(badKey, HI, never), 'rejected');
      expect(err.message).toContain('403');
    });

    it('rejects a 404', async () => {
      double.fail(deeplFaults.notFound());
      await failure(translateOne(engine, HI, never), 'rejected');
    });

    it('rejects a body over 128 KiB (413)', async () => {
      const err = await failure(
        translateOne(engine, { text: 'a'.repeat(130 * 1024), source: 'en', target: 'de' }, never),
        'rejected',
      );
      expect(err.message).toContain('413');
    });

    it('reports 456 as quota', async () => {
      double.exhaustQuota();

      const err = await failure(translateOne(engine, HI, never), 'quota');
      expect(err.message).toContain('Quota for this billing period has been exceeded.');
    });

    it('reports quota once the character limit of the period is used up', async () => {
      const small = await startDeepLDouble({ authKey: KEY, characterLimit: 10 });
      try {
        const limited = createDeepLEngine({ authKey: KEY, baseUrl: small.url });
        await translateOne(limited, { text: 'Thank you', source: 'en', target: 'de' }, never);
        await failure(
          translateOne(limited, { text: 'Thank you', source: 'en', target: 'de' }, never),
          'quota',
        );
      } finally {
        await small.close();
      }
    });

    it('reports 429 as transient with Retry-After in milliseconds', async () => {
      double.fail(deeplFaults.tooManyRequests(7));

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(7000);
    });

    it('reports 529 as transient with Retry-After', async () => {
      double.fail(deeplFaults.overloaded(2));

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(2000);
    });

    it.each([
      ['500', deeplFaults.internalError()],
      ['504', deeplFaults.unavailable()],
    ])('reports %s as transient without a retry hint', async (_status, fault) => {
      double.fail(fault);

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBeUndefined();
    });

    it('rejects a 200 whose body is not a DeepL translation', async () => {
      double.fail({ type: 'respond', status: 200, body: '<html>captive portal</html>' });
      await failure(translateOne(engine, HI, never), 'rejected');
    });
  });

  describeTransportFaults('deepl', {
    makeEngine: (baseUrl) => createDeepLEngine({ authKey: KEY, baseUrl }),
    double: () => double,
    secrets: [KEY],
  });
});
