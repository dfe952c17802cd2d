/**
 * The doubles' own quirks that the adapters never trigger (they always send well-formed requests with
 * format text), checked with plain fetch so a double cannot drift from the documented contract unseen.
 */
import { describe, expect, it } from '@jest/globals';

import { startDeepLDouble } from './deepl.double.js';
import { startGoogleDouble } from './google.double.js';
import { startHttpDouble } from './http-double.js';
import { startLibreTranslateDouble } from './libretranslate.double.js';
import { startMyMemoryDouble } from './mymemory.double.js';
import { waitFor } from '../harness/wait.js';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('http double', () => {
  it('records requests and applies queued faults in order, then answers normally', async () => {
    const double = await startHttpDouble(() => ({ status: 200, body: { ok: true } }));
    try {
      double.fail({ type: 'respond', status: 503, body: 'busy' }, { times: 2 });
      double.fail({ type: 'respond', status: 418 }, { path: '/other' });

      const statuses: number[] = [];
      for (const path of ['/a?x=1', '/other', '/a', '/other', '/a']) {
        statuses.push((await post(`${double.url}${path}`, { n: 1 }, { 'x-test': 'yes' })).status);
      }

      expect(statuses).toEqual([503, 503, 200, 418, 200]);
      expect(double.requests[0]).toMatchObject({
        method: 'POST',
        path: '/a',
        query: { x: '1' },
        body: { n: 1 },
      });
      expect(double.requests[0]?.headers['x-test']).toBe('yes');
    } finally {
      await double.close();
    }
  });

  it('delays an answer, and closes even while a request hangs', async () => {
    const double = await startHttpDouble(() => ({ status: 204 }));
    double.fail({ type: 'delay', ms: 120 });
    const started = Date.now();
    expect((await fetch(double.url)).status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);

    double.fail({ type: 'hang' });
    const hanging = fetch(double.url).catch((e: unknown) => e);
    await waitFor('the hanging request received', () => double.requests.length === 2);
    await double.close();
    expect(await hanging).toMatchObject({ name: 'TypeError' });
  });
});

describe('DeepL double', () => {
  it('translates up to 50 texts of one request in order, and refuses a 51st with 413', async () => {
    const double = await startDeepLDouble({ authKey: 'k:fx' });
    try {
      const auth = { authorization: 'DeepL-Auth-Key k:fx' };
      const texts = Array.from({ length: 50 }, (_, n) => `Line ${n}`);
      const ok = await post(`${double.url}/v2/translate`, { text: texts, target_lang: 'DE' }, auth);
      const { translations } = (await ok.json()) as { translations: { text: string }[] };
      expect(translations.map(({ text }) => text)).toEqual(texts.map((text) => `[DE] ${text}`));

      const over = await post(
        `${double.url}/v2/translate`,
        { text: [...texts, 'one more'], target_lang: 'DE' },
        auth,
      );
      expect(over.status).toBe(413);
    } finally {
      await double.close();
    }
  });

  it('answers 403 with an empty body to a wrong key and counts characters in /v2/usage', async () => {
    const double = await startDeepLDouble({ authKey: 'k:fx', characterLimit: 1000 });
    try {
      const denied = await post(`${double.url}/v2/translate`, { text: ['Hi'], target_lang: 'DE' });
      expect(denied.status).toBe(403);
      expect(await denied.text()).toBe('');

      const auth = { authorization: 'DeepL-Auth-Key k:fx' };
      await post(`${double.url}/v2/translate`, { text: ['Hello'], target_lang: 'de' }, auth);
      const usage = await fetch(`${double.url}/v2/usage`, { headers: auth });
      expect(await usage.json()).toEqual({ character_count: 5, character_limit: 1000 });

      const unsupported = await post(`${double.url}/v2/translate`, { text: ['Hi'], target_lang: 'XX' }, auth);
      expect(unsupported.status).toBe(400);
      expect(await unsupported.json()).toEqual({ message: "Value for 'target_lang' not supported." });
    } finally {
      await double.close();
    }
  });
});

describe('Google double', () => {
  it('escapes output as HTML by default and not with format text; detects only without a source', async () => {
    const double = await startGoogleDouble({ apiKey: 'g' });
    try {
      const url = `${double.url}/language/translate/v2?key=g`;
      const html = await (await post(url, { q: ['The bus is late'], target: 'fr' })).json();
      const text = await (
        await post(url, { q: 'The bus is late', target: 'fr', source: 'en', format: 'text' })
      ).json();

      expect(html).toEqual({
        data: {
          translations: [{ translatedText: 'L&#39;autobus est en retard', detectedSourceLanguage: 'en' }],
        },
      });
      expect(text).toEqual({ data: { translations: [{ translatedText: "L'autobus est en retard" }] } });
    } finally {
      await double.close();
    }
  });

  it('answers a missing key with 403 in Google error shape', async () => {
    const double = await startGoogleDouble();
    try {
      const reply = await post(`${double.url}/language/translate/v2`, { q: ['Hi'], target: 'de' });
      expect(reply.status).toBe(403);
      expect(await reply.json()).toMatchObject({
        error: { code: 403, errors: [{ reason: 'forbidden' }], status: 'PERMISSION_DENIED' },
      });
    } finally {
      await double.close();
    }
  });
});

describe('MyMemory double', () => {
  it('reports errors in-band with HTTP 200, the invalid-language status as a string', async () => {
    const double = await startMyMemoryDouble();
    try {
      const get = async (query: string) => {
        const reply = await fetch(`${double.url}/get?${query}`);
        expect(reply.status).toBe(200);
        return (await reply.json()) as { responseData: { translatedText: string }; responseStatus: unknown };
      };
      const tooLong = await get(new URLSearchParams({ q: 'é'.repeat(251), langpair: 'fr|en' }).toString());
      const badTarget = await get('q=Hi&langpair=en|zh_TW');
      const noQuery = await get('langpair=en|de');

      expect(tooLong).toMatchObject({
        responseData: { translatedText: /^QUERY LENGTH LIMIT EXCEEDED/ },
        responseStatus: 403,
      });
      expect(badTarget).toMatchObject({
        responseData: { translatedText: /^'ZH_TW' IS AN INVALID TARGET LANGUAGE/ },
        responseStatus: '403',
      });
      expect(noQuery.responseData.translatedText).toMatch(/^NO QUERY SPECIFIED/);
    } finally {
      await double.close();
    }
  });
});

describe('LibreTranslate double', () => {
  it('lists languages, detects, translates arrays and quotes the detection dict for an unknown source', async () => {
    const double = await startLibreTranslateDouble();
    try {
      const languages = (await (await fetch(`${double.url}/languages`)).json()) as { code: string }[];
      const detect = await (await post(`${double.url}/detect`, { q: '謝謝' })).json();
      const batch = await (
        await post(`${double.url}/translate`, { q: ['Thank you', 'x'], source: 'en', target: 'de' })
      ).json();
      const unknown = await post(`${double.url}/translate`, { q: 'Hi', source: 'xx', target: 'de' });

      expect(languages.map((l) => l.code)).toEqual(
        expect.arrayContaining(['en', 'pb', 'zh-Hans', 'zh-Hant']),
      );
      expect(detect).toEqual([{ confidence: 90, language: 'zh-Hant' }]);
      expect(batch).toEqual({ translatedText: ['Danke', '[de] x'] });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({
        error: "{'confidence': 100.0, 'language': 'xx'} is not supported",
      });
    } finally {
      await double.close();
    }
  });
});
