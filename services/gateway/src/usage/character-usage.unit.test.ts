import { describe, expect, it } from '@jest/globals';

import { charactersOf, countsOf } from './character-usage.js';

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
