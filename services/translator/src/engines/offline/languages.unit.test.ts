import { describe, expect, it } from '@jest/globals';

import { fromOpusCode, isLanguageToken, targetLanguageToken } from './languages.js';

describe('fromOpusCode', () => {
  it('maps zh to zh-CN and keeps other codes', () => {
    expect(fromOpusCode('zh')).toBe('zh-CN');
    expect(fromOpusCode('de')).toBe('de');
  });

  it('gives undefined for language groups', () => {
    expect(fromOpusCode('mul')).toBeUndefined();
  });
});

describe('targetLanguageToken', () => {
  const enZhTokens = ['>>cmn_Hans<<', '>>cmn_Hant<<', '>>yue<<'];

  it('needs no token for a single-target model', () => {
    expect(targetLanguageToken([], 'en')).toBeUndefined();
  });

  it('picks the script-specific token for Chinese', () => {
    expect(targetLanguageToken(enZhTokens, 'zh-CN')).toBe('>>cmn_Hans<<');
    expect(targetLanguageToken(enZhTokens, 'zh-TW')).toBe('>>cmn_Hant<<');
  });

  it('falls back to the bare language code', () => {
    expect(targetLanguageToken(['>>de<<', '>>fr<<'], 'fr')).toBe('>>fr<<');
  });

  it('gives null when the model has language tokens but none for the target', () => {
    expect(targetLanguageToken(enZhTokens, 'de')).toBeNull();
  });

  it('recognises language tokens', () => {
    expect(isLanguageToken('>>cmn_Hans<<')).toBe(true);
    expect(isLanguageToken('▁>>')).toBe(false);
  });
});
