import { describe, expect, it } from '@jest/globals';

import { LANGUAGES, PUBLISHED_CODES, findLanguage, isSupported, normaliseLanguageTag } from './languages.js';

describe('LANGUAGES', () => {
  it('has at least 60 languages with unique codes', () => {
    expect(LANGUAGES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(LANGUAGES.map(({ code }) => code)).size).toBe(LANGUAGES.length);
  });

  it('starts with the 13 published codes in the spec order', () => {
    expect(LANGUAGES.slice(0, 13).map(({ code }) => code)).toEqual([
      'zh-CN',
      'en',
      'ja',
      'ko',
      'zh-TW',
      'es',
      'fr',
      'de',
      'pt',
      'ru',
      'ar',
      'hi',
      'id',
    ]);
    expect(PUBLISHED_CODES).toEqual(LANGUAGES.slice(0, 13).map(({ code }) => code));
  });

  it('marks only Arabic right-to-left among the published languages', () => {
    const rtl = LANGUAGES.slice(0, 13).filter(({ dir }) => dir === 'rtl');
    expect(rtl.map(({ code }) => code)).toEqual(['ar']);
  });

  it.each(['ar', 'he', 'fa', 'ur', 'ps', 'yi', 'ug', 'sd', 'ckb', 'dv'])('marks %s right-to-left', (code) => {
    expect(findLanguage(code)?.dir).toBe('rtl');
  });

  it('gives every language an English and a native name and a valid direction', () => {
    for (const language of LANGUAGES) {
      expect(Object.keys(language).sort()).toEqual(['code', 'dir', 'name', 'native_name']);
      expect(language.name.trim()).not.toBe('');
      expect(language.native_name.trim()).not.toBe('');
      expect(['ltr', 'rtl']).toContain(language.dir);
    }
  });

  it('writes the native names of right-to-left languages in a right-to-left script', () => {
    const rtlScript = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Thaana}]/u;
    for (const language of LANGUAGES) {
      expect([language.code, rtlScript.test(language.native_name)]).toEqual([
        language.code,
        language.dir === 'rtl',
      ]);
    }
  });

  it('is frozen, so no caller can change the shared list', () => {
    expect(Object.isFrozen(LANGUAGES)).toBe(true);
  });
});

describe('normaliseLanguageTag', () => {
  it.each([
    ['zh-CN', 'zh-CN'],
    ['zh-cn', 'zh-CN'],
    ['ZH_cn', 'zh-CN'],
    ['zh', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-Hans-SG', 'zh-CN'],
    ['zh-Hant', 'zh-TW'],
    ['zh-Hant-HK', 'zh-TW'],
    ['zh_TW', 'zh-TW'],
    ['zh-HK', 'zh-TW'],
    ['en', 'en'],
    ['en-US', 'en'],
    ['EN_gb', 'en'],
    ['pt-BR', 'pt'],
    ['sr-Cyrl-RS', 'sr'],
    [' de-AT ', 'de'],
    ['iw', 'he'],
    ['in', 'id'],
    ['no', 'nb'],
    ['fil', 'tl'],
    ['CKB', 'ckb'],
  ])('normalises %j to %s', (tag, code) => {
    expect(normaliseLanguageTag(tag)).toBe(code);
  });

  it.each(['', 'auto', 'xx', 'klingon', 'en--US', 'en US', 'zh-CN!', '-en', 'x-private'])(
    'rejects %j',
    (tag) => {
      expect(normaliseLanguageTag(tag)).toBeUndefined();
    },
  );

  it('maps every listed code to itself', () => {
    for (const { code } of LANGUAGES) expect(normaliseLanguageTag(code)).toBe(code);
  });
});

describe('isSupported and findLanguage', () => {
  it('accepts listed codes exactly as written', () => {
    expect(isSupported('zh-CN')).toBe(true);
    expect(isSupported('ar')).toBe(true);
    expect(findLanguage('ja')).toEqual({ code: 'ja', name: 'Japanese', native_name: '日本語', dir: 'ltr' });
  });

  it('rejects other spellings and unknown codes; normalise first', () => {
    expect(isSupported('zh-cn')).toBe(false);
    expect(isSupported('en-US')).toBe(false);
    expect(isSupported('xx')).toBe(false);
    expect(findLanguage('ZH-CN')).toBeUndefined();
  });
});
