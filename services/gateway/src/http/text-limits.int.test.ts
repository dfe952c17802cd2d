import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { MAX_CHAT_CHARS } from '../chat/chat.routes.js';
import { MODERATION_MAX_TEXT_CHARS } from '../moderation/moderation.routes.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// Every length limit of a request counts characters as code points (docs/decisions.md), as the
// document's maxLength does: a text of exactly the limit in emoji (two UTF-16 units each) passes,
// one more is refused with the documented code, and the document states the limit.
const EMOJI = '😀';
const emoji = (n: number) => EMOJI.repeat(n);
const MAX_TEXT = 300;
const NLI_MAX = 50;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    MAX_TEXT_CHARS: String(MAX_TEXT),
    NLI_MAX_TEXT_CHARS: String(NLI_MAX),
    // Room for MAX_CHAT_CHARS emoji (4 bytes each in UTF-8).
    BODY_LIMIT_KB: '2048',
  });
});

afterAll(async () => {
  await gateway?.close();
});

interface Reply {
  readonly status: number;
  readonly error: string | undefined;
}

async function send(method: string, path: string, body: unknown, key = gateway.keys.admin): Promise<Reply> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // The envelope's error code, or OpenAI's (`{error: {code}}`) on /v1/chat/completions.
  const json = (await res.json()) as { error?: string | { code?: string } };
  return { status: res.status, error: typeof json.error === 'object' ? json.error.code : json.error };
}

const invalid = { status: 400, error: 'VALIDATION_FAILED' };

/** The request at the limit is not refused for its length; one character more is, with `refusal`. */
async function atTheEdge(
  request: (n: number) => Promise<Reply>,
  limit: number,
  refusal: { status: number; error: string },
  accepted?: number,
): Promise<void> {
  const atLimit = await request(limit);
  if (accepted !== undefined) expect(atLimit).toMatchObject({ status: accepted });
  expect([refusal.error, invalid.error, 'validation_failed']).not.toContain(atLimit.error);
  expect(await request(limit + 1)).toMatchObject(refusal);
}

describe('length limits count code points', () => {
  it('a content field text', async () => {
    let version = 0;
    await atTheEdge(
      (n) =>
        send(
          'POST',
          '/api/v1/content/shop/product/p1',
          { source_lang: 'en', source_version: (version += 1), fields: { title: emoji(n) } },
          gateway.keys.client,
        ),
      MAX_TEXT,
      invalid,
      202,
    );
  });

  it('an edited translation text', async () => {
    await atTheEdge(
      (n) =>
        send(
          'PUT',
          '/api/v1/content/shop/product/p1/translations/de',
          { fields: { title: emoji(n) } },
          gateway.keys.client,
        ),
      MAX_TEXT,
      invalid,
    );
  });

  it('a text to translate (with a key: MAX_TEXT_CHARS)', async () => {
    await atTheEdge(
      (n) => send('POST', '/api/v1/translate', { text: emoji(n), source: 'en', target: 'de' }),
      MAX_TEXT,
      { status: 413, error: 'TEXT_TOO_LONG' },
    );
  });

  it('a text to moderate', async () => {
    await atTheEdge(
      (n) => send('POST', '/api/v1/moderate', { text: emoji(n) }, gateway.keys.client),
      MODERATION_MAX_TEXT_CHARS,
      { status: 413, error: 'TEXT_TOO_LONG' },
      200,
    );
  });

  it('a glossary name and term', async () => {
    const glossary = (name: string, term: string, target: string) =>
      send('POST', '/api/admin/translate/glossaries', {
        name,
        source_lang: 'en',
        target_lang: target,
        entries: [{ source: term, target: term }],
      });
    await atTheEdge((n) => glossary(emoji(n), 'Acme', 'fr'), 200, invalid, 201);
    await atTheEdge(
      (n) => glossary('terms', emoji(n), n > 200 ? 'it' : 'es'),
      200,
      { status: 400, error: 'GLOSSARY_ENTRIES_INVALID' },
      201,
    );
  });

  it('a moderation term', async () => {
    await atTheEdge(
      (n) => send('POST', '/api/admin/moderation/terms', { term: emoji(n), kind: 'block' }),
      200,
      invalid,
      201,
    );
  });

  it('an API key name', async () => {
    await atTheEdge(
      (n) => send('POST', '/api/admin/keys', { role: 'client', name: emoji(n) }),
      100,
      invalid,
      201,
    );
  });

  it('a chat model name and the text of all messages', async () => {
    const chat = (model: string, text: string) =>
      send('POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: text }] });
    const chatInvalid = { status: 400, error: 'validation_failed' };
    await atTheEdge((n) => chat(emoji(n), 'hi'), 200, chatInvalid);
    await atTheEdge((n) => chat('nobody', emoji(n)), MAX_CHAT_CHARS, chatInvalid);
  });
});

describe('the OpenAPI document', () => {
  const schemaOf = (path: string, method = 'post') => {
    const operation = (gateway.openapi.paths[path] as Record<string, unknown>)[method] as {
      requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } };
    };
    return operation.requestBody.content['application/json'].schema as {
      properties: Record<string, Record<string, unknown>>;
    };
  };

  it('states every length limit as maxLength', () => {
    const content = schemaOf('/api/v1/content/{module}/{type}/{id}').properties.fields;
    expect(content?.additionalProperties).toMatchObject({ minLength: 1, maxLength: MAX_TEXT });
    const edit = schemaOf('/api/v1/content/{module}/{type}/{id}/translations/{lang}', 'put').properties
      .fields;
    expect(edit?.additionalProperties).toMatchObject({ minLength: 1, maxLength: MAX_TEXT });
    // One text, or an array whose items each have the limit (and together the same total).
    expect(schemaOf('/api/v1/translate').properties.text).toMatchObject({
      anyOf: [{ maxLength: MAX_TEXT }, { items: { maxLength: MAX_TEXT } }],
    });
    expect(schemaOf('/api/admin/translate/test').properties.text).toMatchObject({ maxLength: MAX_TEXT });
    expect(schemaOf('/api/v1/moderate').properties.text).toMatchObject({
      maxLength: MODERATION_MAX_TEXT_CHARS,
    });
    expect(schemaOf('/api/v1/moderate/nli').properties.text).toMatchObject({ maxLength: NLI_MAX });
    expect(schemaOf('/api/admin/nli/test').properties.text).toMatchObject({ maxLength: NLI_MAX });
    expect(schemaOf('/api/admin/translate/glossaries').properties.name).toMatchObject({ maxLength: 200 });
    expect(schemaOf('/api/admin/moderation/terms').properties.term).toMatchObject({ maxLength: 200 });
    expect(schemaOf('/api/admin/keys').properties.name).toMatchObject({ maxLength: 100 });
    expect(schemaOf('/v1/chat/completions').properties.model).toMatchObject({ maxLength: 200 });
  });

  it('excludes __proto__ from the field names of a report', () => {
    const fields = schemaOf('/api/v1/content/{module}/{type}/{id}').properties.fields;
    expect(fields?.propertyNames).toMatchObject({ not: { const: '__proto__' } });
  });
});
