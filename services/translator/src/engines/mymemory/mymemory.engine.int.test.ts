import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import {
  describeTransportFaults,
  expectEngineFailure,
  HI,
  never,
  translateOne,
} from '@tp/test/doubles/engine-test-kit';
import {
  QUERY_TOO_LONG,
  QUOTA_WARNING,
  mymemoryBody,
  mymemoryFaults,
  startMyMemoryDouble,
  type MyMemoryDouble,
} from '@tp/test/doubles/mymemory.double';
import type { EngineFailureKind, TranslationEngine } from '../engine.js';
import { createMyMemoryEngine } from './mymemory.engine.js';

const QUOTA_RESET_MS = ((23 * 60 + 59) * 60 + 59) * 1000;

const failure = (promise: Promise<unknown>, kind: EngineFailureKind) =>
  expectEngineFailure(promise, 'mymemory', kind);

describe('MyMemory engine', () => {
  let double: MyMemoryDouble;
  let engine: TranslationEngine;
  const sentQuery = (): string => double.requests.at(-1)?.query.q ?? '';

  beforeAll(async () => {
    double = await startMyMemoryDouble();
    engine = createMyMemoryEngine({ baseUrl: double.url });
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.reset();
    double.restoreQuota();
  });

  describe('success', () => {
    it('takes one text per request: the texts of a call are asked one after the other, in order', async () => {
      const items = await engine.translate(
        { texts: ['Good morning', 'Thank you'], source: 'en', target: 'de' },
        never,
      );

      expect(items).toEqual([
        { text: 'Guten Morgen', truncated: false },
        { text: 'Danke', truncated: false },
      ]);
      expect(double.requests.map((request) => request.query.q)).toEqual(['Good morning', 'Thank you']);
      expect(engine.batch).toBeUndefined();
    });

    it('gets /get with q and langpair=src|tgt and returns the translation untruncated', async () => {
      const result = await translateOne(engine, { text: 'Good morning', source: 'en', target: 'de' }, never);

      expect(result).toEqual({ text: 'Guten Morgen', truncated: false });
      expect(double.requests[0]).toMatchObject({
        method: 'GET',
        path: '/get',
        query: { q: 'Good morning', langpair: 'en|de' },
      });
      expect(double.requests[0]?.query).not.toHaveProperty('de');
    });

    it('sends zh-CN and zh-TW as RFC 3066 codes, also when given as zh_TW', async () => {
      const simplified = await translateOne(
        engine,
        { text: 'Thank you', source: 'en', target: 'zh-CN' },
        never,
      );
      const traditional = await translateOne(
        engine,
        { text: 'Thank you', source: 'en', target: 'zh_TW' },
        never,
      );

      expect([simplified.text, traditional.text]).toEqual(['谢谢', '謝謝']);
      expect(double.requests.map((r) => r.query.langpair)).toEqual(['en|zh-CN', 'en|zh-TW']);
    });

    it('sends the configured email as de', async () => {
      const withEmail = createMyMemoryEngine({ baseUrl: double.url, email: 'ops@example.org' });

      await translateOne(withEmail, { text: 'Good morning', source: 'en', target: 'fr' }, never);
      expect(double.requests[0]?.query.de).toBe('ops@example.org');
    });

    it('announces a 500-character limit', () => {
      expect(engine.maxChars).toBe(500);
    });
  });

  describe('truncation', () => {
    it('cuts ASCII text to 500 characters at a word boundary and flags it', async () => {
      const text = 'lorem ipsum dolor '.repeat(40); // 720 characters

      const result = await translateOne(engine, { text, source: 'en', target: 'de' }, never);

      const sent = sentQuery();
      expect(sent.length).toBeLessThanOrEqual(500);
      expect(sent.length).toBeGreaterThan(400);
      expect(text.startsWith(sent)).toBe(true);
      expect(sent).toMatch(/(lorem|ipsum|dolor)$/);
      expect(result).toEqual({ text: `[de] ${sent}`, truncated: true });
    });

    it('prefers the end of the last sentence when it is close to the limit', async () => {
      const text = `${'a'.repeat(460)}. ${'b '.repeat(50)}`; // 562 characters

      await translateOne(engine, { text, source: 'en', target: 'de' }, never);
      expect(sentQuery()).toBe(`${'a'.repeat(460)}.`);
    });

    it('cuts multi-byte text to 500 UTF-8 bytes on a character boundary', async () => {
      const text = '雨'.repeat(200); // 200 characters, 600 bytes, no break to prefer

      const result = await translateOne(engine, { text, source: 'zh-CN', target: 'en' }, never);

      const sent = sentQuery();
      expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(500);
      expect(sent).toBe('雨'.repeat(166));
      expect(result.truncated).toBe(true);
    });

    it('never splits an emoji (4-byte characters and ZWJ sequences)', async () => {
      const family = '👩‍👩‍👧'; // 3 emoji joined by 2 ZWJs: 5 code points, 18 bytes
      const text = family.repeat(30); // 540 bytes

      await translateOne(engine, { text, source: 'en', target: 'de' }, never);

      const sent = sentQuery();
      expect(sent).toBe(family.repeat(27));
      expect(Buffer.byteLength(sent)).toBe(486);
    });

    it('does not flag text of exactly 500 bytes', async () => {
      const text = `${'é'.repeat(200)}${'x'.repeat(100)}`; // 400 + 100 bytes

      const result = await translateOne(engine, { text, source: 'fr', target: 'en' }, never);

      expect(sentQuery()).toBe(text);
      expect(result.truncated).toBe(false);
    });
  });

  describe('unsupported pairs', () => {
    it.each([
      ['auto', 'en'],
      ['en', 'english'],
    ])('refuses %s -> %s without calling MyMemory', async (source, target) => {
      await failure(translateOne(engine, { text: 'Hello', source, target }, never), 'unsupported');
      expect(double.requests).toHaveLength(0);
    });

    it('reports `\'XX\' IS AN INVALID TARGET LANGUAGE` (responseStatus "403") as unsupported', async () => {
      const err = await failure(
        translateOne(engine, { text: 'Hi', source: 'en', target: 'xx' }, never),
        'unsupported',
      );
      expect(err.message).toContain("'XX' IS AN INVALID TARGET LANGUAGE");
    });

    it("reports `'ZH_TW' IS AN INVALID TARGET LANGUAGE` as unsupported", async () => {
      double.fail(
        mymemoryFaults.inBandStatus('403', "'ZH_TW' IS AN INVALID TARGET LANGUAGE . EXAMPLE: LANGPAIR=EN|IT"),
      );
      await failure(
        translateOne(engine, { text: 'Hi', source: 'en', target: 'zh-TW' }, never),
        'unsupported',
      );
    });

    it('reports PLEASE SELECT TWO DISTINCT LANGUAGES as unsupported', async () => {
      await failure(translateOne(engine, { text: 'Hi', source: 'en', target: 'en' }, never), 'unsupported');
    });
  });

  describe('in-band errors', () => {
    it('reports the daily quota warning as quota, with the time until it resets', async () => {
      double.exhaustQuota();

      const err = await failure(translateOne(engine, HI, never), 'quota');
      expect(err.message).toContain('MYMEMORY WARNING');
      expect(err.retryAfterMs).toBe(QUOTA_RESET_MS);
    });

    it('reports quota once the daily byte budget is spent', async () => {
      const small = await startMyMemoryDouble({ dailyBytes: 12 });
      try {
        const limited = createMyMemoryEngine({ baseUrl: small.url });
        await translateOne(limited, { text: 'Good morning', source: 'en', target: 'de' }, never);
        await failure(
          translateOne(limited, { text: 'Thank you', source: 'en', target: 'de' }, never),
          'quota',
        );
      } finally {
        await small.close();
      }
    });

    it('reports the quota warning sent with HTTP 429 as quota', async () => {
      double.fail(mymemoryFaults.quotaOverHttp429());
      await failure(translateOne(engine, HI, never), 'quota');
    });

    it('reports the quota warning text as quota even without quotaFinished or a failure status', async () => {
      double.fail({
        type: 'respond',
        status: 200,
        body: mymemoryBody({ translatedText: QUOTA_WARNING, quotaFinished: false }),
      });

      const err = await failure(translateOne(engine, HI, never), 'quota');
      expect(err.retryAfterMs).toBe(QUOTA_RESET_MS);
    });

    it('reports quotaFinished: true as quota even beside a plausible translation', async () => {
      double.fail({
        type: 'respond',
        status: 200,
        body: mymemoryBody({ translatedText: 'Hallo', quotaFinished: true }),
      });
      await failure(translateOne(engine, HI, never), 'quota');
    });

    it('rejects QUERY LENGTH LIMIT EXCEEDED', async () => {
      double.fail(mymemoryFaults.inBandStatus(403, QUERY_TOO_LONG));

      const err = await failure(translateOne(engine, HI, never), 'rejected');
      expect(err.message).toContain('QUERY LENGTH LIMIT EXCEEDED');
    });

    it.each([
      [403, 'rejected'],
      ['403', 'rejected'],
      ['500', 'transient'],
      [503, 'transient'],
    ] as const)('classifies responseStatus %p with HTTP 200 as %s', async (responseStatus, kind) => {
      double.fail(mymemoryFaults.inBandStatus(responseStatus, 'Hallo'));
      await failure(translateOne(engine, HI, never), kind);
    });

    it('rejects an empty translation', async () => {
      double.fail(mymemoryFaults.emptyOutput());

      const err = await failure(translateOne(engine, HI, never), 'rejected');
      expect(err.message).toContain('empty');
    });

    it('rejects a translation equal to the input', async () => {
      double.fail(mymemoryFaults.echo());

      const err = await failure(
        translateOne(engine, { text: 'Hi there', source: 'en', target: 'de' }, never),
        'rejected',
      );
      expect(err.message).toContain('equals the input');
    });

    it('rejects a 200 that is not a MyMemory body', async () => {
      double.fail({ type: 'respond', status: 200, body: '<html>captive portal</html>' });
      await failure(translateOne(engine, HI, never), 'rejected');
    });
  });

  describe('HTTP and network errors', () => {
    it('reports a plain HTTP 429 as transient with Retry-After', async () => {
      double.fail(mymemoryFaults.tooManyRequests(30));

      const err = await failure(translateOne(engine, HI, never), 'transient');
      expect(err.retryAfterMs).toBe(30_000);
    });

    it('reports HTTP 5xx as transient', async () => {
      double.fail(mymemoryFaults.serverError(502));
      await failure(translateOne(engine, HI, never), 'transient');
    });

    it('rejects an HTTP 404', async () => {
      double.fail({ type: 'respond', status: 404, body: 'Not Found' });
      await failure(translateOne(engine, HI, never), 'rejected');
    });
  });

  describeTransportFaults('mymemory', {
    makeEngine: (baseUrl) => createMyMemoryEngine({ baseUrl }),
    double: () => double,
  });
});
