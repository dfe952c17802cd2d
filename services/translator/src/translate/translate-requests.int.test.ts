import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LANGUAGES } from '@tp/translation';

import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';

interface ErrorBody {
  code: number;
  error: string;
  message: string;
  details?: {
    issues?: { path: string; message: string; code: string }[];
    attempts?: { slot: string; outcome: string; reason?: string }[];
    [key: string]: unknown;
  };
  request_id: string;
}

describe('the translator HTTP API: malformed requests, languages, engine status', () => {
  let translator: TestTranslator;

  beforeAll(async () => {
    // No engine at all, and a small hard maximum so that "too long" is cheap to send.
    translator = await startTestTranslator({ MAX_TEXT_CHARS: '100', OPENCC_ENABLED: 'false' });
  });

  afterAll(async () => {
    await translator?.close();
  });

  it.each([
    ['text is missing', { target: 'en' }, 'body.text'],
    ['text is empty', { text: '', target: 'en' }, 'body.text'],
    ['text is a number', { text: 42, target: 'en' }, 'body.text'],
    ['target is missing', { text: '你好' }, 'body.target'],
    ['source is not a string', { text: '你好', source: ['en'], target: 'en' }, 'body.source'],
    ['a field is unknown', { text: '你好', target: 'en', targt: 'de' }, 'body'],
    ['the body is an array', [{ text: '你好', target: 'en' }], 'body'],
  ])('400 VALIDATION_FAILED (40002) when %s', async (_case, body, path) => {
    const reply = await translator.translate<ErrorBody>(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    expect(reply.body.details?.issues?.[0]?.path).toBe(path);
    expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
  });

  it('names the unknown field', async () => {
    const reply = await translator.translate<ErrorBody>({ text: '你好', target: 'en', targt: 'de' });
    expect(reply.body.message).toContain('targt');
  });

  it('400 MALFORMED_JSON (40001) for a body that is not JSON', async () => {
    const reply = await translator.translate<ErrorBody>('{"text": "你好", "target": ');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 40001, error: 'MALFORMED_JSON' });
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body sent as form data', async () => {
    const res = await fetch(`${translator.url}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'text=hi&target=en',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 41501 });
  });

  it.each([
    ['target', { text: '你好', target: 'xx' }, 'xx', 'target'],
    ['source', { text: '你好', source: 'klingon', target: 'en' }, 'klingon', 'source'],
    ['target auto', { text: '你好', target: 'auto' }, 'auto', 'target'],
  ])('400 UNSUPPORTED_LANGUAGE (40004) naming an unknown %s code', async (_case, body, code, field) => {
    const reply = await translator.translate<ErrorBody>(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 40004, error: 'UNSUPPORTED_LANGUAGE' });
    expect(reply.body.message).toContain(`"${code}"`);
    // The same details as the gateway's: one rule (languageCode in @tp/translation) for both.
    expect(reply.body.details).toEqual({ field, value: code });
  });

  it('413 TEXT_TOO_LONG (41302) for text over MAX_TEXT_CHARS, counting characters, not bytes', async () => {
    const reply = await translator.translate<ErrorBody>({ text: 'a'.repeat(101), target: 'en' });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({
      code: 41302,
      error: 'TEXT_TOO_LONG',
      details: { length: 101, max: 100 },
    });
    // 100 emoji are 200 UTF-16 units but 100 characters: within the limit (and then no engine is configured).
    const emoji = await translator.translate<ErrorBody>({ text: '😀'.repeat(100), target: 'en' });
    expect(emoji.body.error).toBe('UNSUPPORTED_LANGUAGE_PAIR');
  });

  it('400 UNSUPPORTED_LANGUAGE_PAIR when no engine is configured, naming what would make it work, every slot "not configured"', async () => {
    const reply = await translator.translate<ErrorBody>({ text: '你好，世界', target: 'en' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 40006, error: 'UNSUPPORTED_LANGUAGE_PAIR' });
    expect(reply.body.message).toContain('zh-CN -> en: no installed engine serves this pair');
    expect(reply.body.message).toContain('set PRIMARY_ENGINE=deepl|google with its key');
    expect(reply.body.message).toContain('set LIBRETRANSLATE_URL');
    expect(reply.body.message).toContain('`npm run models:pull -- zh-en`');
    expect(reply.body.message).toContain('Retrying will not help.');
    expect(reply.body.details?.attempts).toEqual(
      ['variant', 'primary', 'fallback', 'local', 'apertium', 'offline'].map((slot) => ({
        slot,
        outcome: 'skipped',
        reason: 'not configured',
      })),
    );
  });

  it('accepts language codes in other spellings and answers with ours', async () => {
    // Same language after normalising: returned as it is, with no engine needed.
    const reply = await translator.translate({ text: 'Hello', source: 'EN_us', target: 'en' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ translatedText: 'Hello', source: 'en', target: 'en', engine: 'none' });
  });

  it('GET /languages lists every supported language, the spec published ones first', async () => {
    const reply = await translator.get<{ languages: typeof LANGUAGES }>('/languages');
    expect(reply.status).toBe(200);
    expect(reply.body.languages).toEqual(LANGUAGES);
    expect(reply.body.languages.slice(0, 3).map((l) => l.code)).toEqual(['zh-CN', 'en', 'ja']);
  });

  it('GET /engines reports every slot as not configured and no offline models', async () => {
    const reply = await translator.get('/engines');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      engines: ['variant', 'primary', 'fallback', 'local', 'apertium', 'offline'].map((slot) => ({
        slot,
        configured: false,
        successes: 0,
        failures: 0,
      })),
      pairs: [],
      offlineModels: [],
    });
  });
});
