import { describe, expect, it } from '@jest/globals';

import { isSentence, messageLines } from './sentences.js';

describe('catalogue messages as corpus sentences', () => {
  it('removes placeholders, options, markup, URLs and menu accelerators, line by line', () => {
    expect(
      messageLines(
        "Cannot open %s: %1$-5d {name} $HOME\nUse --force or <b>see</b> https://example.com/x for `details'\n_Open the file",
      ),
    ).toEqual(['Cannot open : ', 'Use or see for', 'Open the file'].map((line) => line.trim()));
  });

  it('keeps a sentence of 25-200 characters that is mostly words', () => {
    expect(isSentence('The file could not be opened for writing', 'en')).toBe(true);
    expect(isSentence('Too short a line', 'en')).toBe(false);
    expect(isSentence(`${'word '.repeat(41)}`.trim(), 'en')).toBe(false);
    expect(isSentence('=== 1234 5678 ::: 9999 ---- ***', 'en')).toBe(false);
  });

  it('asks a spaced language for three words, and no word count of Chinese or Japanese', () => {
    expect(isSentence('Internationalisierungsunterstützungsbibliothek', 'de')).toBe(false);
    expect(isSentence('找不到套件的檔案清單，假設該套件目前沒有安裝任何檔案', 'zh-TW')).toBe(true);
  });

  it('refuses a line of a non-Latin language that is not written in its script (left untranslated)', () => {
    expect(isSentence('FIRST, INCREMENT, and LAST are interpreted as values.', 'ko')).toBe(false);
    expect(isSentence('FIRST, INCREMENT, LAST는 부동 소수점 값으로 해석됩니다.', 'ko')).toBe(true);
  });
});
