import { describe, expect, it } from '@jest/globals';

import { actualCounts, charactersOf, countsOf, expectedCounts } from './character-usage.js';

describe('characters of a translation', () => {
  it('counts code points, not UTF-16 units or bytes', () => {
    // 5 Chinese characters, an emoji outside the BMP (2 UTF-16 units), a combining accent (2 code points).
    expect(charactersOf(['軟體和滑鼠', '👍', 'e\u0301'])).toBe(5 + 1 + 2);
    expect(charactersOf([])).toBe(0);
  });

  it('splits texts by outcome and charges nothing for a failed one', () => {
    expect(countsOf(['abc', 'de', 'f', 'ghij'], ['translated', 'cached', 'failed', 'translated'])).toEqual({
      translated: 7,
      cached: 2,
    });
  });

  it('charges nothing for texts without an outcome (an answer shorter than the request)', () => {
    expect(countsOf(['abc', 'de'], ['cached'])).toEqual({ translated: 0, cached: 3 });
  });
});

describe('characters of a request with hot-cache hits and texts sent to the translator', () => {
  it('expects the sent texts to be translated and the hits to be cached', () => {
    expect(expectedCounts(['hit'], ['sent one', 'two'])).toEqual({ translated: 11, cached: 3 });
  });

  it('counts each sent text by its item: translated, cached by the translator, or an error', () => {
    const items = [{ cached: false }, { cached: true }, { error: { code: 'TRANSLATION_UNAVAILABLE' } }];
    expect(actualCounts(['hit'], ['aaaa', 'bb', 'c'], items)).toEqual({ translated: 4, cached: 2 + 3 });
  });

  it('counts only the hits when the translator call failed', () => {
    expect(actualCounts(['hit'], ['aaaa'], undefined)).toEqual({ translated: 0, cached: 3 });
  });
});
