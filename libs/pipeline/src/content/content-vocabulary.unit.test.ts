import { describe, expect, it } from '@jest/globals';

import {
  contentChangedEntry,
  contentChangedKey,
  freeTextField,
  sourceHash,
  translationCompletedData,
  translationCompletedEntry,
  translationMessageKey,
  translationRequestedData,
  translationRequestedEntry,
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
  it('keys translation messages entityType:entityId:field:targetLang', () => {
    expect(
      translationMessageKey({ entityType: 'vendor', entityId: 'v-1', field: 'name', targetLang: 'en' }),
    ).toBe('vendor:v-1:name:en');
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
  it('carries the stored field, version and hash, in the asked language', () => {
    expect(translationRequestedData(stored, 'en')).toEqual({
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      text: '你好',
      sourceHash: SHA256_NIHAO,
      sourceVersion: 7,
    });
  });
});

describe('translationRequestedEntry', () => {
  it('puts the request on the prefixed request topic under the field key, in the given context', () => {
    const entry = translationRequestedEntry(translationRequestedData(stored, 'ja'), 'p.', {
      correlationId: 'corr-1',
      causationId: 'cause-1',
    });
    expect(entry.topic).toBe('p.translation.requested.v1');
    expect(entry.key).toBe('vendor:v-1:name:ja');
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
    const fields = [{ name: 'name', text: '你好', extra: 'dropped' }];
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
      fields: [{ name: 'name', text: '你好' }],
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
    expect(translationCompletedData(stored, outcome, 1_700_000_000_000)).toEqual({
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
    });
  });

  it('carries the detected language and the truncation of an `auto` outcome', () => {
    const data = translationCompletedData(
      stored,
      { ...outcome, engine: 'mymemory', truncated: true, detectedSource: 'zh-CN' },
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
  it('puts the result on the prefixed completed topic under the field key, in the given context', () => {
    const data = translationCompletedData(freeTextField('h-1', 'abc'), outcome, 9);
    const entry = translationCompletedEntry(data, 'p.', {
      correlationId: 'corr-3',
      causationId: 'req-3',
    });
    expect(entry.topic).toBe('p.translation.completed.v1');
    expect(entry.key).toBe('text:h-1:text:en');
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
    });
  });
});
