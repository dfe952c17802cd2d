import { describe, expect, it } from '@jest/globals';

import { requestedFields, type RequestedField } from '@tp/pipeline';
import type { TranslationRequested } from '@tp/contracts';

import { retranslationRequests } from './retranslation-requests.js';

const stored = (field: string, sourceLang = 'zh-CN'): RequestedField => ({
  entityType: 'vendor',
  entityId: 'v-1',
  field,
  sourceLang,
  text: `${field} text`,
  sourceHash: 'a'.repeat(64),
  sourceVersion: 4,
});

const origin = { correlationId: 'req-1', causationId: 'req-1' };

describe('retranslationRequests', () => {
  it('requests every field in every target language, one request per language keyed type:id:lang on the prefixed topic', () => {
    const result = retranslationRequests([stored('name'), stored('bio')], ['en', 'ja'], 'p.', origin);
    expect(result.entries.map((e) => [e.topic, e.key])).toEqual([
      ['p.translation.requested.v1', 'vendor:v-1:en'],
      ['p.translation.requested.v1', 'vendor:v-1:ja'],
    ]);
    expect(
      result.entries.map((e) => requestedFields((e.event as TranslationRequested).data).map((f) => f.field)),
    ).toEqual([
      ['name', 'bio'],
      ['name', 'bio'],
    ]);
    expect(result.requested).toBe(4);
    expect(result.fields).toEqual(['name', 'bio']);
    expect(result.targetLanguages).toEqual(['en', 'ja']);
    expect(result.entries[0]?.event).toMatchObject({
      eventType: 'TranslationRequested',
      correlationId: 'req-1',
      causationId: 'req-1',
      data: {
        entityType: 'vendor',
        entityId: 'v-1',
        field: 'name',
        sourceLang: 'zh-CN',
        targetLang: 'en',
        text: 'name text',
        sourceHash: 'a'.repeat(64),
        sourceVersion: 4,
      },
    });
  });

  it("skips a field's own source language, and reports only languages actually requested", () => {
    const result = retranslationRequests([stored('name', 'en')], ['en', 'de'], '', origin);
    expect(result.entries.map((e) => e.key)).toEqual(['vendor:v-1:de']);
    expect(result.requested).toBe(1);
    expect(result.targetLanguages).toEqual(['de']);
  });

  it('requests nothing when no target language is configured', () => {
    const result = retranslationRequests([stored('name')], [], '', origin);
    expect(result).toEqual({ entries: [], requested: 0, fields: ['name'], targetLanguages: [] });
  });
});
