import { describe, expect, it } from '@jest/globals';

import {
  contentChangedEntry,
  contentChangedKey,
  freeTextField,
  sourceHash,
  completedFields,
  MAX_REQUEST_FIELDS,
  MAX_REQUEST_TEXT_BYTES,
  requestedFields,
  translationCompletedData,
  translationCompletedEntry,
  translationMessageKey,
  translationRequestedData,
  translationRequestedEntry,
  translationRequests,
  type StoredField,
} from './index.js';

// Digests from `printf '<text>' | sha256sum`, not from the code under test.
const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const SHA256_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SHA256_NIHAO = '670d9743542cae3ea7ebe36af56bd53648b0a1126162e78d81a32934a711302e';

const stored: StoredField = {
  module: 'catalog',
  entityType: 'vendor',
  entityId: 'v-1',
  field: 'name',
  sourceLang: 'zh-CN',
  text: '你好',
  sourceHash: SHA256_NIHAO,
  sourceVersion: 7,
};

describe('message keys', () => {
  it('keys translation messages entityType:entityId:targetLang: one entity in one language', () => {
    expect(translationMessageKey({ entityType: 'vendor', entityId: 'v-1', targetLang: 'en' })).toBe(
      'vendor:v-1:en',
    );
  });

  it('keys a content change entityType:entityId', () => {
    expect(contentChangedKey('vendor', 'v-1')).toBe('vendor:v-1');
  });
});

describe('sourceHash', () => {
  it('is the SHA-256 hex of the UTF-8 text', () => {
    expect(sourceHash('abc')).toBe(SHA256_ABC);
    expect(sourceHash('')).toBe(SHA256_EMPTY);
    expect(sourceHash('你好')).toBe(SHA256_NIHAO);
  });

  it('gives the same hash for the same text and another for another text', () => {
    expect(sourceHash('你好')).toBe(sourceHash('你好'));
    expect(sourceHash('你好 ')).not.toBe(SHA256_NIHAO);
  });
});

describe('translationRequestedData', () => {
  it('carries the stored field, version and hash, in the asked language, as text by default', () => {
    expect(translationRequestedData([stored], 'en')).toEqual({
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      text: '你好',
      sourceHash: SHA256_NIHAO,
      sourceVersion: 7,
      format: 'text',
      moreFields: [],
    });
  });

  it('carries the first field where v1 had it and the others, with their formats, in moreFields', () => {
    const body = { ...stored, field: 'body', text: '<p>你好</p>', sourceHash: SHA256_ABC, format: 'html' };
    const data = translationRequestedData([stored, body], 'en');
    expect(data).toMatchObject({ field: 'name', text: '你好', format: 'text' });
    expect(data.moreFields).toEqual([
      { field: 'body', text: '<p>你好</p>', sourceHash: SHA256_ABC, sourceVersion: 7, format: 'html' },
    ]);
    expect(requestedFields(data).map(({ field, format }) => [field, format])).toEqual([
      ['name', 'text'],
      ['body', 'html'],
    ]);
  });
});

describe('translationRequests', () => {
  const field = (entityId: string, name: string, text = 'x', sourceLang = 'zh-CN'): StoredField => ({
    ...stored,
    entityId,
    field: name,
    text,
    sourceLang,
  });

  it('asks for the fields of one entity and source language in one request, in their order', () => {
    const requests = translationRequests(
      [field('v-1', 'a'), field('v-2', 'a'), field('v-1', 'b'), field('v-1', 'c', 'x', 'en')],
      'ja',
    );
    expect(requests.map((r) => [r.entityId, r.sourceLang, requestedFields(r).map((f) => f.field)])).toEqual([
      ['v-1', 'zh-CN', ['a', 'b']],
      ['v-2', 'zh-CN', ['a']],
      ['v-1', 'en', ['c']],
    ]);
    expect(requests.every((r) => r.targetLang === 'ja')).toBe(true);
  });

  it('splits at the most fields a request carries', () => {
    const fields = Array.from({ length: MAX_REQUEST_FIELDS * 2 + 1 }, (_, i) => field('v-1', `f${i}`));
    const sizes = translationRequests(fields, 'ja').map((r) => requestedFields(r).length);
    expect(sizes).toEqual([MAX_REQUEST_FIELDS, MAX_REQUEST_FIELDS, 1]);
  });

  it('splits at the most bytes of text a request carries, a longer field going alone', () => {
    const third = 'é'.repeat(MAX_REQUEST_TEXT_BYTES / 6); // two bytes a character: a third of the budget
    const long = 'x'.repeat(MAX_REQUEST_TEXT_BYTES + 1);
    const requests = translationRequests(
      [
        field('v-1', 'a', third),
        field('v-1', 'b', third),
        field('v-1', 'c', third),
        field('v-1', 'd', long),
        field('v-1', 'e', third),
      ],
      'ja',
    );
    expect(requests.map((r) => requestedFields(r).map((f) => f.field))).toEqual([
      ['a', 'b', 'c'],
      ['d'],
      ['e'],
    ]);
  });
});

describe('translationRequestedEntry', () => {
  it('puts the request on the prefixed request topic under the entity and language key, in the given context', () => {
    const entry = translationRequestedEntry(translationRequestedData([stored], 'ja'), 'p.', {
      correlationId: 'corr-1',
      causationId: 'cause-1',
    });
    expect(entry.topic).toBe('p.translation.requested.v1');
    expect(entry.key).toBe('vendor:v-1:ja');
    expect(entry.event).toMatchObject({
      eventType: 'TranslationRequested',
      eventVersion: 0,
      correlationId: 'corr-1',
      causationId: 'cause-1',
      data: { entityType: 'vendor', entityId: 'v-1', field: 'name', targetLang: 'ja', text: '你好' },
    });
    expect(entry.event.eventId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('contentChangedEntry', () => {
  it('puts the change on the prefixed content topic keyed by entity, with only the contract fields', () => {
    const fields = [{ name: 'name', text: '你好', extra: 'dropped', format: 'text' }];
    const entry = contentChangedEntry(
      {
        module: 'catalog',
        entityType: 'vendor',
        entityId: 'v-1',
        sourceLang: 'zh-CN',
        sourceVersion: 7,
        fields,
      },
      '',
      { correlationId: 'corr-2', causationId: null },
    );
    expect(entry.topic).toBe('content.changed.v1');
    expect(entry.key).toBe('vendor:v-1');
    expect(entry.event).toMatchObject({
      eventType: 'ContentChanged',
      correlationId: 'corr-2',
      causationId: null,
    });
    expect(entry.event.data).toEqual({
      module: 'catalog',
      entityType: 'vendor',
      entityId: 'v-1',
      sourceLang: 'zh-CN',
      sourceVersion: 7,
      fields: [{ name: 'name', text: '你好', format: 'text' }],
    });
  });
});

const outcome = {
  translatedText: 'Hello',
  source: 'zh-CN',
  target: 'en',
  engine: 'deepl',
  truncated: false,
  fallback: false,
};

describe('translationCompletedData', () => {
  it('answers the stored field with the outcome, its request time and no detected language', () => {
    expect(translationCompletedData([{ field: stored, outcome }], 1_700_000_000_000)).toEqual({
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: 'Hello',
      sourceHash: SHA256_NIHAO,
      sourceVersion: 7,
      engine: 'deepl',
      truncated: false,
      fallback: false,
      detectedSourceLang: null,
      requestedAt: 1_700_000_000_000,
      moreResults: [],
      failures: [],
    });
  });

  it('carries the other fields in moreResults and the failed ones in failures; completedFields reads them all', () => {
    const body = { ...stored, field: 'body', sourceHash: SHA256_ABC, sourceVersion: 8 };
    const failure = {
      field: 'note',
      sourceHash: SHA256_EMPTY,
      sourceVersion: 7,
      code: 'TEXT_TOO_LONG',
      reason: 'too long',
      retrying: false,
    };
    const data = translationCompletedData(
      [
        { field: stored, outcome },
        { field: body, outcome: { ...outcome, translatedText: 'Body', engine: 'apertium', fallback: true } },
      ],
      42,
      [failure],
    );
    expect(data.moreResults).toEqual([
      {
        // The event's own entity: no entity named.
        entityId: null,
        field: 'body',
        translatedText: 'Body',
        sourceHash: SHA256_ABC,
        sourceVersion: 8,
        engine: 'apertium',
        truncated: false,
        fallback: true,
        detectedSourceLang: null,
      },
    ]);
    expect(data.failures).toEqual([failure]);
    expect(completedFields(data)).toEqual([
      expect.objectContaining({
        field: 'name',
        translatedText: 'Hello',
        sourceVersion: 7,
        engine: 'deepl',
        requestedAt: 42,
        targetLang: 'en',
      }),
      expect.objectContaining({
        field: 'body',
        translatedText: 'Body',
        sourceVersion: 8,
        fallback: true,
        requestedAt: 42,
        entityId: 'v-1',
      }),
    ]);
  });

  it('carries the detected language and the truncation of an `auto` outcome', () => {
    const data = translationCompletedData(
      [
        {
          field: stored,
          outcome: { ...outcome, engine: 'mymemory', truncated: true, detectedSource: 'zh-CN' },
        },
      ],
      5,
    );
    expect(data).toMatchObject({ engine: 'mymemory', truncated: true, detectedSourceLang: 'zh-CN' });
  });
});

describe('freeTextField', () => {
  it('files free text under entity type text, field text, version 0 and the SHA-256 of the text', () => {
    expect(freeTextField('h-1', 'abc')).toEqual({
      entityType: 'text',
      entityId: 'h-1',
      field: 'text',
      sourceHash: SHA256_ABC,
      sourceVersion: 0,
    });
  });
});

describe('translationCompletedEntry', () => {
  it('puts the result on the prefixed completed topic under the entity and language key, in the given context', () => {
    const data = translationCompletedData([{ field: freeTextField('h-1', 'abc'), outcome }], 9);
    const entry = translationCompletedEntry(data, 'p.', {
      correlationId: 'corr-3',
      causationId: 'req-3',
    });
    expect(entry.topic).toBe('p.translation.completed.v1');
    expect(entry.key).toBe('text:h-1:en');
    expect(entry.event).toMatchObject({
      eventType: 'TranslationCompleted',
      correlationId: 'corr-3',
      causationId: 'req-3',
    });
    expect(entry.event.data).toEqual({
      entityType: 'text',
      entityId: 'h-1',
      field: 'text',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: 'Hello',
      sourceHash: SHA256_ABC,
      sourceVersion: 0,
      engine: 'deepl',
      truncated: false,
      fallback: false,
      detectedSourceLang: null,
      requestedAt: 9,
      moreResults: [],
      failures: [],
    });
  });
});
