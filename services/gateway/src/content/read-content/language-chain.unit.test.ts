import { describe, expect, it } from '@jest/globals';
import { AppError } from '@tp/runtime';

import { languageChain, requestedLanguages } from './language-chain.js';

describe('languageChain', () => {
  it.each([
    ['zh-CN', ['zh-CN']],
    ['zh-cn', ['zh-CN']],
    ['ZH_cn', ['zh-CN']],
    ['zh', ['zh-CN']],
    ['zh-Hans', ['zh-CN']],
    ['en', ['en']],
    ['en-US', ['en']],
    ['en_gb', ['en']],
    ['EN', ['en']],
    ['pt-BR', ['pt']],
    ['zh-TW', ['zh-TW']],
    ['zh-HK', ['zh-TW']],
    ['zh-Hant', ['zh-TW']],
    ['zh-Hant-TW', ['zh-TW']],
    ['zh_hant_tw', ['zh-TW']],
  ])('reads %s as %j', (tag, chain) => {
    expect(languageChain(tag)).toEqual(chain);
  });

  it('never falls back from Traditional to Simplified Chinese', () => {
    expect(languageChain('zh-Hant-TW')).not.toContain('zh-CN');
    expect(languageChain('zh-TW')).not.toContain('zh-CN');
  });

  it('is empty for a tag of no listed language', () => {
    expect(languageChain('qq')).toEqual([]);
    expect(languageChain('tlh-Latn')).toEqual([]);
  });
});

describe('requestedLanguages', () => {
  it('answers the chain of a tag of a listed language', () => {
    expect(requestedLanguages('zh-Hant-TW')).toEqual(['zh-TW']);
    expect(requestedLanguages('en_US')).toEqual(['en']);
  });

  it('answers 400 UNSUPPORTED_LANGUAGE naming x-language for an unknown language', () => {
    expect(() => requestedLanguages('qq-QQ')).toThrow(AppError);
    try {
      requestedLanguages('qq-QQ');
    } catch (err) {
      expect(err).toMatchObject({
        code: 'UNSUPPORTED_LANGUAGE',
        details: { field: 'x-language', value: 'qq-QQ' },
      });
    }
  });
});
