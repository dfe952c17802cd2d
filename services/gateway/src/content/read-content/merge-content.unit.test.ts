import { describe, expect, it } from '@jest/globals';

import { mergeContent, type TranslatedField } from './merge-content.js';

const field = (
  name: string,
  text: string,
  translations: Record<string, string> = {},
  extra: Partial<TranslatedField> = {},
): TranslatedField => ({
  entityType: 'vendor',
  entityId: 'v-1',
  module: 'catalog',
  field: name,
  sourceLang: 'zh-CN',
  text,
  sourceHash: `hash-of-${text}`,
  sourceVersion: 1,
  translations: new Map(Object.entries(translations)),
  ...extra,
});

describe('mergeContent', () => {
  const fields = [
    field('name', '华为', { en: 'Huawei', ja: 'ファーウェイ' }),
    field('address', '深圳', {}, { sourceVersion: 3 }),
  ];

  it('serves the source text without a language, with nothing untranslated or wanted', () => {
    const merged = mergeContent('vendor', 'v-1', fields, undefined);
    expect(merged.view).toEqual({
      type: 'vendor',
      id: 'v-1',
      module: 'catalog',
      source_lang: 'zh-CN',
      source_version: 3,
      language: 'zh-CN',
      fields: { address: '深圳', name: '华为' },
      untranslated: [],
      meta: {},
    });
    expect(merged.languages).toEqual(['zh-CN']);
    expect(merged.wanted).toEqual([]);
  });

  it('replaces translated fields, keeps the source of the others and lists them', () => {
    const merged = mergeContent('vendor', 'v-1', fields, ['en']);
    expect(merged.view.fields).toEqual({ address: '深圳', name: 'Huawei' });
    expect(merged.view.language).toBe('en');
    expect(merged.view.untranslated).toEqual(['address']);
    expect(merged.languages).toEqual(['en', 'zh-CN']);
    expect(merged.wanted.map((f) => f.field)).toEqual(['address']);
  });

  it('says only the asked language when every field is translated', () => {
    const merged = mergeContent('vendor', 'v-1', [fields[0] as TranslatedField], ['ja']);
    expect(merged.view.fields).toEqual({ name: 'ファーウェイ' });
    expect(merged.languages).toEqual(['ja']);
    expect(merged.view.untranslated).toEqual([]);
  });

  it('takes the first language of the chain that a field has, and wants the first one', () => {
    const merged = mergeContent('vendor', 'v-1', fields, ['pt-BR', 'en']);
    expect(merged.view.fields.name).toBe('Huawei');
    expect(merged.view.untranslated).toEqual(['address']);
    expect(merged.languages).toEqual(['en', 'zh-CN']);
    expect(merged.wanted.map((f) => f.field)).toEqual(['address', 'name']);
  });

  it('serves the source as it is when the source language is asked', () => {
    const merged = mergeContent('vendor', 'v-1', fields, ['zh-CN']);
    expect(merged.view.fields).toEqual({ address: '深圳', name: '华为' });
    expect(merged.view.untranslated).toEqual([]);
    expect(merged.wanted).toEqual([]);
    expect(merged.languages).toEqual(['zh-CN']);
  });

  it('reports the source language and version of the latest report', () => {
    const merged = mergeContent(
      'vendor',
      'v-1',
      [field('name', 'Huawei', {}, { sourceLang: 'en', sourceVersion: 5 }), field('address', '深圳')],
      undefined,
    );
    expect(merged.view).toMatchObject({ source_lang: 'en', source_version: 5 });
    expect(merged.languages).toEqual(['en', 'zh-CN']);
  });

  it('tells each translated field its origin, engine and flags, and wants a truncated one again', () => {
    const meta = new Map([
      [
        'en',
        { origin: 'machine' as const, engine: 'mymemory', stale: false, truncated: true, fallback: false },
      ],
      ['ja', { origin: 'human' as const, engine: null, stale: true, truncated: false, fallback: false }],
    ]);
    const translated = [
      field('name', '华为', { en: 'Hua', ja: 'ファーウェイ' }, { meta }),
      field('city', '深圳', { en: 'Shenzhen' }),
      field('note', '好'),
    ];
    const english = mergeContent('vendor', 'v-1', translated, ['en']);
    expect(english.view.meta).toEqual({
      name: { language: 'en', origin: 'machine', engine: 'mymemory', truncated: true },
      city: { language: 'en', origin: 'machine', engine: null },
    });
    expect(english.wanted.map((f) => f.field)).toEqual(['name', 'note']);
    const japanese = mergeContent('vendor', 'v-1', translated, ['ja']);
    expect(japanese.view.meta).toEqual({
      name: { language: 'ja', origin: 'human', engine: null, stale: true },
    });
    // A stale human translation is served; it is not requested from the read path.
    expect(japanese.view.fields.name).toBe('ファーウェイ');
    expect(japanese.wanted.map((f) => f.field)).toEqual(['city', 'note']);
  });

  it("flags a fallback engine's translation and wants it again, but not a first-choice one", () => {
    const weak = new Map([
      [
        'en',
        { origin: 'machine' as const, engine: 'mymemory', stale: false, truncated: false, fallback: true },
      ],
    ]);
    const strong = new Map([
      [
        'en',
        { origin: 'machine' as const, engine: 'deepl', stale: false, truncated: false, fallback: false },
      ],
    ]);
    const merged = mergeContent(
      'vendor',
      'v-1',
      [
        field('name', '华为', { en: 'Huawei' }, { meta: weak }),
        field('city', '深圳', { en: 'Shenzhen' }, { meta: strong }),
      ],
      ['en'],
    );
    expect(merged.view.meta).toEqual({
      name: { language: 'en', origin: 'machine', engine: 'mymemory', fallback: true },
      city: { language: 'en', origin: 'machine', engine: 'deepl' },
    });
    expect(merged.view.fields).toEqual({ name: 'Huawei', city: 'Shenzhen' });
    expect(merged.wanted.map((f) => f.field)).toEqual(['name']);
  });
});

describe('mergeContent field order', () => {
  it('lists fields and untranslated fields by name, whatever order the store gives them', () => {
    const merged = mergeContent(
      'vendor',
      'v-1',
      [field('slogan', '新鲜'), field('address', '北京'), field('name', '你好', { pt: 'Olá' })],
      ['pt'],
    );
    expect(Object.keys(merged.view.fields)).toEqual(['address', 'name', 'slogan']);
    expect(merged.view.untranslated).toEqual(['address', 'slogan']);
    expect(merged.wanted.map((f) => f.field)).toEqual(['address', 'slogan']);
  });
});
