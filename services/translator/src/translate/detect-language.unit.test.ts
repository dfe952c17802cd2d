import { beforeAll, describe, expect, it } from '@jest/globals';

import { openLanguageDetector, type LanguageDetector } from './detect-language.js';

describe('language detection for source auto', () => {
  let detector: LanguageDetector;
  beforeAll(async () => {
    detector = await openLanguageDetector();
  });

  it.each([
    ['The bus is late and nobody knows why', 'en'],
    ['Der Bus hat Verspätung, und niemand weiß warum', 'de'],
    ['Bonjour le monde, comment allez-vous ?', 'fr'],
    ['こんにちは、世界！', 'ja'],
    ['안녕하세요, 만나서 반갑습니다', 'ko'],
    ['Сегодня мы поедем в город, чтобы купить новую книгу.', 'ru'],
    ['Київ є столицею України.', 'uk'],
    ['Obrigado pela sua ajuda hoje.', 'pt'],
    ['Good morning', 'en'],
  ])('detects %j as %s', (text, code) => {
    expect(detector.detect(text)).toBe(code);
  });

  it('maps eld Chinese (zh) to our zh-CN, also for a two-character text only Chinese scores', () => {
    expect(detector.detect('你好，世界')).toBe('zh-CN');
    expect(detector.detect('你好')).toBe('zh-CN');
  });

  it('gives no answer for text without letters, or too short to tell', () => {
    expect(detector.detect('12345 !!!')).toBeUndefined();
    expect(detector.detect('Hello')).toBeUndefined();
  });

  it('gives no answer for a short text two languages score almost the same, even if eld calls it reliable', () => {
    // eld: Norwegian 0.710, Tagalog 0.709, English further below.
    expect(detector.detect('Hello, world!')).toBeUndefined();
  });

  it('takes a published language over a neighbour the model scores about the same', () => {
    // eld: Tagalog 0.82 against English 0.81; English is published, Tagalog is not.
    expect(detector.detect('Meeting at 5pm')).toBe('en');
  });

  it('ignores URLs and placeholders, which are not language', () => {
    expect(detector.detect('{name} https://example.com/path %s')).toBeUndefined();
    expect(detector.detect('Guten Morgen {name}, bitte lesen Sie https://example.com/hilfe')).toBe('de');
  });
});
