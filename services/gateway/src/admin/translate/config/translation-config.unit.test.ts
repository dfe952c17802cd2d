import { describe, expect, it } from '@jest/globals';

import { translationConfigBody } from '../translation-config.js';

const problems = (body: unknown) => {
  const result = translationConfigBody.safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => [i.path.join('.'), i.message]);
};

describe('PUT /api/admin/translate/config body', () => {
  it('reads any case and region of a listed code as our code', () => {
    expect(translationConfigBody.parse({ target_languages: ['EN', 'zh_cn', 'pt-BR', 'ja'] })).toEqual({
      target_languages: ['en', 'zh-CN', 'pt', 'ja'],
    });
  });

  it('reads human_only like target_languages, naming each bad item', () => {
    expect(translationConfigBody.parse({ human_only: ['JA', 'zh_tw'] })).toEqual({
      human_only: ['ja', 'zh-TW'],
    });
    expect(problems({ human_only: ['ja', 'xx', 'JA', 3] })).toEqual([
      ['human_only.1', expect.stringContaining('unsupported language "xx"')],
      ['human_only.2', 'ja is already listed (item 0)'],
      ['human_only.3', 'must be a language code (a string)'],
    ]);
    expect(problems({ human_only: 'ja' })).toEqual([['human_only', 'must be an array of language codes']]);
  });

  it('accepts an empty list, and enabled alone', () => {
    expect(translationConfigBody.parse({ target_languages: [] })).toEqual({ target_languages: [] });
    expect(translationConfigBody.parse({ enabled: false })).toEqual({ enabled: false });
  });

  it('lists every unsupported code and every duplicate after normalisation', () => {
    expect(problems({ target_languages: ['en', 'xx', 'EN', 'auto', 'de', 7, 'de-DE'] })).toEqual([
      ['target_languages.1', expect.stringContaining('unsupported language "xx"')],
      ['target_languages.2', 'en is already listed (item 0)'],
      ['target_languages.3', expect.stringContaining('unsupported language "auto"')],
      ['target_languages.5', 'must be a language code (a string)'],
      ['target_languages.6', 'de is already listed (item 4)'],
    ]);
  });

  it('refuses wrong types, more than 50 codes, unknown fields and an empty body', () => {
    expect(problems({ target_languages: 'en', enabled: 'yes', revision: 3 })).toEqual([
      ['target_languages', 'must be an array of language codes'],
      ['enabled', 'must be true or false'],
      ['', 'Unrecognized key: "revision"'],
    ]);
    expect(problems({ target_languages: [1, 'en'] })).toEqual([
      ['target_languages.0', 'must be a language code (a string)'],
    ]);
    expect(problems({ target_languages: Array.from({ length: 51 }, () => 'en') })[0]).toEqual([
      'target_languages',
      'must list at most 50 languages',
    ]);
    expect(problems({})).toEqual([['', 'must set target_languages, enabled or human_only']]);
  });
});
