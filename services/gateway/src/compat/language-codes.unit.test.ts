import { describe, expect, it } from '@jest/globals';

import {
  DEEPL_LANGUAGES,
  LIBRE_PUBLISHED_CODES,
  deepLLanguages,
  deepLSourceCode,
  fromDeepLCode,
  fromLibreCode,
  libreCode,
} from './language-codes.js';

// DeepL's published codes (its API's GET /v2/languages) with the language each stands for here.
const DEEPL_SOURCES: Record<string, string> = {
  AR: 'ar', BG: 'bg', CS: 'cs', DA: 'da', DE: 'de', EL: 'el', EN: 'en', ES: 'es', ET: 'et', FI: 'fi',
  FR: 'fr', HE: 'he', HU: 'hu', ID: 'id', IT: 'it', JA: 'ja', KO: 'ko', LT: 'lt', LV: 'lv', NB: 'nb',
  NL: 'nl', PL: 'pl', PT: 'pt', RO: 'ro', RU: 'ru', SK: 'sk', SL: 'sl', SV: 'sv', TH: 'th', TR: 'tr',
  UK: 'uk', VI: 'vi', ZH: 'zh-CN',
}; // prettier-ignore
const DEEPL_TARGETS: Record<string, string> = {
  AR: 'ar', BG: 'bg', CS: 'cs', DA: 'da', DE: 'de', EL: 'el', 'EN-GB': 'en', 'EN-US': 'en', ES: 'es',
  'ES-419': 'es', ET: 'et', FI: 'fi', FR: 'fr', HE: 'he', HU: 'hu', ID: 'id', IT: 'it', JA: 'ja',
  KO: 'ko', LT: 'lt', LV: 'lv', NB: 'nb', NL: 'nl', PL: 'pl', 'PT-BR': 'pt', 'PT-PT': 'pt', RO: 'ro',
  RU: 'ru', SK: 'sk', SL: 'sl', SV: 'sv', TH: 'th', TR: 'tr', UK: 'uk', VI: 'vi', 'ZH-HANS': 'zh-CN',
  'ZH-HANT': 'zh-TW',
}; // prettier-ignore
// LibreTranslate's published codes (libretranslate.com's /languages) and the legacy ones instances send.
const LIBRE: Record<string, string> = {
  ar: 'ar', az: 'az', bg: 'bg', bn: 'bn', ca: 'ca', cs: 'cs', da: 'da', de: 'de', el: 'el', en: 'en',
  eo: 'eo', es: 'es', et: 'et', eu: 'eu', fa: 'fa', fi: 'fi', fr: 'fr', ga: 'ga', gl: 'gl', he: 'he',
  hi: 'hi', hu: 'hu', id: 'id', it: 'it', ja: 'ja', ko: 'ko', ky: 'ky', lt: 'lt', lv: 'lv', ms: 'ms',
  nb: 'nb', nl: 'nl', pl: 'pl', pt: 'pt', 'pt-BR': 'pt', ro: 'ro', ru: 'ru', sk: 'sk', sl: 'sl',
  sq: 'sq', sr: 'sr', sv: 'sv', th: 'th', tl: 'tl', tr: 'tr', uk: 'uk', ur: 'ur', vi: 'vi',
  'zh-Hans': 'zh-CN', 'zh-Hant': 'zh-TW',
}; // prettier-ignore

describe('DeepL source codes', () => {
  it.each(Object.entries(DEEPL_SOURCES))('%s is read as %s, in any case', (code, ours) => {
    expect(fromDeepLCode('source', code)).toBe(ours);
    expect(fromDeepLCode('source', code.toLowerCase())).toBe(ours);
  });

  it('lists exactly the published sources before the languages DeepL lacks', () => {
    const listed = deepLLanguages('source').map(({ code }) => code);
    expect(listed.slice(0, Object.keys(DEEPL_SOURCES).length).sort()).toEqual(
      Object.keys(DEEPL_SOURCES).sort(),
    );
  });

  it('refuses a target variant as a source, as DeepL does', () => {
    expect(fromDeepLCode('source', 'EN-US')).toBeUndefined();
    expect(fromDeepLCode('source', 'ZH-HANT')).toBeUndefined();
  });
});

describe('DeepL target codes', () => {
  it.each(Object.entries(DEEPL_TARGETS))('%s is written as %s', (code, ours) => {
    expect(fromDeepLCode('target', code)).toBe(ours);
  });

  it('reads the deprecated EN, PT and ZH targets as English, Portuguese and Simplified Chinese', () => {
    expect(fromDeepLCode('target', 'EN')).toBe('en');
    expect(fromDeepLCode('target', 'pt')).toBe('pt');
    expect(fromDeepLCode('target', 'ZH')).toBe('zh-CN');
  });

  it('lists exactly the published targets first, formality where DeepL has it', () => {
    const listed = deepLLanguages('target');
    expect(
      listed
        .slice(0, Object.keys(DEEPL_TARGETS).length)
        .map(({ code }) => code)
        .sort(),
    ).toEqual(Object.keys(DEEPL_TARGETS).sort());
    expect(listed.find(({ code }) => code === 'DE')?.formality).toBe(true);
    expect(listed.find(({ code }) => code === 'EN-GB')?.formality).toBe(false);
  });
});

describe('codes DeepL does not publish', () => {
  it('reads a language only the platform has under its own code and lists it so', () => {
    expect(fromDeepLCode('target', 'CA')).toBe('ca');
    expect(fromDeepLCode('source', 'gl')).toBe('gl');
    expect(deepLLanguages('target').find(({ code }) => code === 'CA')?.ours).toBe('ca');
  });

  it('refuses an unknown code and a regional code of a language DeepL names otherwise', () => {
    expect(fromDeepLCode('target', 'XX')).toBeUndefined();
    expect(fromDeepLCode('target', 'EN-AU')).toBeUndefined();
  });

  it('names a detected language by its DeepL source code, ours in upper case otherwise', () => {
    expect(deepLSourceCode('zh-TW')).toBe('ZH');
    expect(deepLSourceCode('en')).toBe('EN');
    expect(deepLSourceCode('ca')).toBe('CA');
  });

  it('has one row per DeepL code', () => {
    const codes = DEEPL_LANGUAGES.map(({ code }) => code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('LibreTranslate codes', () => {
  it('covers the published list', () => {
    expect([...LIBRE_PUBLISHED_CODES].sort()).toEqual(Object.keys(LIBRE).sort());
  });

  it.each(Object.entries(LIBRE))('%s is read as %s', (code, ours) => {
    expect(fromLibreCode(code)).toBe(ours);
  });

  it.each([
    ['zh', 'zh-CN'],
    ['zt', 'zh-TW'],
    ['pb', 'pt'],
  ])('reads the legacy code %s as %s', (code, ours) => {
    expect(fromLibreCode(code)).toBe(ours);
  });

  it('writes the Chinese scripts as zh-Hans and zh-Hant, the others as our codes', () => {
    expect(libreCode('zh-CN')).toBe('zh-Hans');
    expect(libreCode('zh-TW')).toBe('zh-Hant');
    expect(libreCode('es')).toBe('es');
  });
});
