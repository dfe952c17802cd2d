import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { cacheTranslation, startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// How the DeepL- and LibreTranslate-compatible routes read a key and answer failures, at the gateway
// alone (the translator is down: the glossary list needs only Postgres). The client libraries' view:
// test/e2e/compat-clients.e2e.test.ts.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const glossaries = (init: RequestInit = {}) => fetch(`${gateway.url}/v2/glossaries`, init);
const languages = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/v2/languages`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });

describe('the key of a DeepL request', () => {
  it('is read from Authorization: DeepL-Auth-Key, in any case of the scheme', async () => {
    for (const scheme of ['DeepL-Auth-Key', 'deepl-auth-key']) {
      const res = await glossaries({ headers: { authorization: `${scheme} ${gateway.keys.client}` } });
      expect({ scheme, status: res.status }).toEqual({ scheme, status: 200 });
      expect(await res.json()).toEqual({ glossaries: expect.any(Array) });
    }
  });

  it('is read from the legacy auth_key form field', async () => {
    const withKey = await languages(`auth_key=${gateway.keys.client}&type=target`);
    // Past authentication: the translator it asks for the pairs is down.
    expect(withKey.status).toBe(503);
    expect(await withKey.json()).toMatchObject({ code: 'TRANSLATOR_UNAVAILABLE' });
    const without = await languages('type=target');
    expect(without.status).toBe(403);
  });

  it('answers a missing, unknown or revoked key 403 with DeepL’s {message}', async () => {
    const cases = [
      [undefined, 'API_KEY_MISSING'],
      [`DeepL-Auth-Key tp_${'A'.repeat(43)}`, 'API_KEY_INVALID'],
      [`DeepL-Auth-Key ${gateway.keys.revoked}`, 'API_KEY_REVOKED'],
      ['DeepL-Auth-Key ', 'API_KEY_MALFORMED'],
    ] as const;
    for (const [authorization, code] of cases) {
      const res = await glossaries({ headers: authorization ? { authorization } : {} });
      expect({ authorization, status: res.status, body: await res.json() }).toEqual({
        authorization,
        status: 403,
        body: { message: expect.any(String), code },
      });
    }
  });

  it('tells a request without a usable key how DeepL’s clients send one', async () => {
    for (const headers of [
      {},
      { authorization: 'DeepL-Auth-Key ' },
      { authorization: 'Basic Zm9vOmJhcg==' },
    ]) {
      const { message } = (await (await glossaries({ headers })).json()) as { message: string };
      expect({ headers, message }).toEqual({
        headers,
        message: expect.stringContaining('DeepL-Auth-Key <key>'),
      });
    }
  });

  it('answers a glossary write with a client key 403 FORBIDDEN', async () => {
    const res = await glossaries({
      method: 'POST',
      headers: {
        authorization: `DeepL-Auth-Key ${gateway.keys.client}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=x&source_lang=EN&target_lang=DE&entries=a%09b&entries_format=tsv',
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('DeepL failures', () => {
  it('answers an unknown /v2 path 404 in DeepL’s shape', async () => {
    const res = await fetch(`${gateway.url}/v2/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: expect.any(String), code: 'NOT_FOUND' });
  });

  it('answers a body that is neither JSON nor a form 415', async () => {
    const res = await glossaries({
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${gateway.keys.admin}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers an empty form 400, as a request without a body', async () => {
    const res = await languages('', { authorization: `DeepL-Auth-Key ${gateway.keys.client}` });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('a hostile /v2/translate or /translate body', () => {
  // DeepL's key in its header; LibreTranslate's in the body.
  const post = (path: string, body: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: {
        ...(path.startsWith('/v2/') ? { authorization: `DeepL-Auth-Key ${gateway.keys.client}` } : {}),
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  /** The answers of both APIs to the same texts: DeepL's `{message}`, LibreTranslate's `{error}`. */
  const refusals = async (texts: unknown) => {
    const deepl = await post('/v2/translate', { text: texts, target_lang: 'ES' });
    const libre = await post('/translate', { q: texts, target: 'es' });
    return [deepl.status, await deepl.json(), libre.status, await libre.json()];
  };

  it.each([
    ['1,000 texts', Array(1000).fill('hi')],
    ['texts that are numbers', [1, 2]],
    ['an object', { a: 1 }],
    ['a nested list', [['hi']]],
  ])(
    'refuses %s with 400 VALIDATION_FAILED naming the limit, before any translation',
    async (_label, texts) => {
      const rule = 'one text, or a list of 1 to 128 texts';
      expect(await refusals(texts)).toEqual([
        400,
        { message: `body.text: ${rule}`, code: 'VALIDATION_FAILED' },
        400,
        { error: `body.q: ${rule}`, code: 'VALIDATION_FAILED' },
      ]);
    },
  );

  it('refuses an empty text 400 in each API’s shape, before any translation', async () => {
    expect(await refusals('')).toEqual([
      400,
      { message: "body.text: Parameter 'text' is empty.", code: 'VALIDATION_FAILED' },
      400,
      { error: 'body.q: Invalid request: missing q parameter', code: 'VALIDATION_FAILED' },
    ]);
  });

  it('refuses tag_handling=xml 400 in DeepL’s shape, naming html, rather than reading the XML as HTML', async () => {
    const res = await post('/v2/translate', {
      text: 'Hello <ph id="1"/> <Greeting>world</Greeting>',
      target_lang: 'ES',
      tag_handling: 'xml',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; code: string };
    expect(body).toEqual({
      message: expect.stringContaining('XML tag handling is not supported'),
      code: 'VALIDATION_FAILED',
    });
    expect(body.message).toContain("'html'");
  });

  it('refuses an unknown glossary id 404 and one that is no id 400, before any translation', async () => {
    const body = { text: 'hi', source_lang: 'EN', target_lang: 'ES' };
    const unknown = await post('/v2/translate', {
      ...body,
      glossary_id: '00000000-0000-4000-8000-000000000000',
    });
    const malformed = await post('/v2/translate', { ...body, glossary_id: '../x' });
    expect([unknown.status, malformed.status]).toEqual([404, 400]);
    expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('the key of a LibreTranslate request', () => {
  const detect = (body: Record<string, string>) =>
    fetch(`${gateway.url}/detect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Buenos días', ...body }),
    });

  it('is read from api_key (and apiKey) in the body, and refused 403 when it is not valid', async () => {
    for (const field of ['api_key', 'apiKey']) {
      const res = await detect({ [field]: gateway.keys.revoked });
      expect({ field, status: res.status, body: await res.json() }).toEqual({
        field,
        status: 403,
        body: { error: expect.any(String), code: 'API_KEY_REVOKED' },
      });
    }
  });

  it('lets a valid key, an empty one and none through', async () => {
    for (const body of [{ api_key: gateway.keys.client }, { api_key: '' }, {}] as Record<string, string>[]) {
      const res = await detect(body);
      // Past authentication: the translator is down here.
      expect({ body, status: res.status }).toEqual({ body, status: 503 });
    }
  });
});

describe('a LibreTranslate multipart/form-data body (its front-end posts FormData)', () => {
  const translate = (form: FormData) => fetch(`${gateway.url}/translate`, { method: 'POST', body: form });
  const fields = (entries: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(entries)) form.append(name, value);
    return form;
  };

  it('is read as a form: q, source and target answer the translation', async () => {
    await cacheTranslation(gateway, { source: 'zh-CN', target: 'en', text: '你好' }, 'hello');
    const res = await translate(fields({ q: '你好', source: 'zh-Hans', target: 'en', api_key: '' }));
    expect([res.status, await res.json()]).toEqual([200, { translatedText: 'hello' }]);
  });

  it('reads a repeated field as a list, in order', async () => {
    await cacheTranslation(gateway, { source: 'zh-CN', target: 'en', text: '你好' }, 'hello');
    await cacheTranslation(gateway, { source: 'zh-CN', target: 'en', text: '谢谢' }, 'thanks');
    const form = fields({ source: 'zh-Hans', target: 'en' });
    for (const q of ['谢谢', '你好', '谢谢']) form.append('q', q);
    const res = await translate(form);
    expect([res.status, await res.json()]).toEqual([200, { translatedText: ['thanks', 'hello', 'thanks'] }]);
  });

  it('refuses a file part 400, naming it', async () => {
    const form = fields({ q: 'hi', source: 'en', target: 'es' });
    form.append('file', new Blob(['hi'], { type: 'text/plain' }), 'hi.txt');
    const res = await translate(form);
    expect([res.status, await res.json()]).toEqual([
      400,
      { error: expect.stringContaining('`file` is a file'), code: 'BAD_REQUEST' },
    ]);
  });

  it('refuses a body over the limit PAYLOAD_TOO_LARGE, as a JSON body over it', async () => {
    const q = 'x'.repeat(gateway.config.BODY_LIMIT_KB * 1024 + 1);
    const multipart = await translate(fields({ q, target: 'es' }));
    const json = await fetch(`${gateway.url}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q, target: 'es' }),
    });
    const answer = [multipart.status, await multipart.json()];
    expect(answer).toEqual([json.status, await json.json()]);
    // LibreTranslate answers its client faults 400.
    expect(answer).toEqual([400, { error: 'request body is too large', code: 'PAYLOAD_TOO_LARGE' }]);
  });

  it('refuses more fields than a form may hold 400', async () => {
    const form = fields({ q: 'hi', target: 'es' });
    for (let i = 0; i < 1000; i += 1) form.append('q', 'hi');
    const res = await translate(form);
    expect([res.status, await res.json()]).toEqual([
      400,
      { error: 'a form has at most 1000 fields', code: 'BAD_REQUEST' },
    ]);
  });
});

describe('LibreTranslate failures', () => {
  it('answers in LibreTranslate’s {error} shape, 400 for a bad request', async () => {
    const res = await fetch(`${gateway.url}/detect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'wrong field' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.stringContaining('q'), code: 'VALIDATION_FAILED' });
  });

  it('keeps a 503 when the translator is down', async () => {
    const res = await fetch(`${gateway.url}/languages`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: expect.any(String), code: 'TRANSLATOR_UNAVAILABLE' });
  });
});
