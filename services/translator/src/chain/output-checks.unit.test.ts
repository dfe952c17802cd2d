import { describe, expect, it } from '@jest/globals';

import { UNCHANGED, checkOutput, longestRepeat } from './output-checks.js';

const check = (input: string, output: string, source = 'en', target = 'de') =>
  checkOutput({ input, output, source, target });

describe('checkOutput', () => {
  it('accepts an ordinary translation', () => {
    expect(check('The weather is nice today.', 'Das Wetter ist heute schön.')).toBeUndefined();
  });

  it('rejects empty and whitespace-only output', () => {
    expect(check('Hello there', '')).toBe('empty output');
    expect(check('Hello there', ' \n\t')).toBe('empty output');
  });

  describe('unchanged output', () => {
    it('rejects a sentence returned as it was, ignoring case and spacing', () => {
      expect(check('The weather is nice today.', 'The weather is nice today.')).toBe(UNCHANGED);
      expect(check('The weather is nice today.', '  the  weather is NICE today. ')).toBe(UNCHANGED);
    });

    it('accepts an answer identical to a text the engine knew every word of (close languages agree)', () => {
      const usar = {
        input: 'Usar página completa',
        output: 'Usar página completa',
        source: 'es',
        target: 'pt',
      };
      expect(checkOutput({ ...usar, unknownWords: 0 })).toBeUndefined();
      expect(checkOutput({ ...usar, unknownWords: 1 })).toBeUndefined();
    });

    it('still rejects it when the engine did not know half of the words or more, or gave no count', () => {
      const text = 'valor incomprensible para --palette';
      const unchanged = { input: text, output: text, source: 'es', target: 'pt' };
      expect(checkOutput({ ...unchanged, unknownWords: 2 })).toBe(UNCHANGED);
      expect(
        checkOutput({ ...unchanged, input: 'Xyzzy plugh frob', output: 'Xyzzy plugh frob', unknownWords: 3 }),
      ).toBe(UNCHANGED);
      expect(checkOutput(unchanged)).toBe(UNCHANGED);
    });

    it('rejects unchanged CJK text of five or more characters', () => {
      expect(check('今天天气很好', '今天天气很好', 'zh-CN', 'en')).toBe(UNCHANGED);
    });

    it.each([
      ['numbers only', '12 345,00 €'],
      ['a single name', 'Berlin'],
      ['a single brand', 'iPhone'],
      ['short CJK name', '東京都', 'ja', 'zh-CN'],
      ['tokens only', '⟦0⟧ ⟦1⟧'],
    ])('accepts %s coming back unchanged', (_what, text, source = 'en', target = 'de') => {
      expect(check(text, text, source, target)).toBeUndefined();
    });

    it('accepts unchanged text between variants of one language', () => {
      expect(check('中文测试句子很长', '中文测试句子很长', 'zh-CN', 'zh-TW')).toBeUndefined();
      expect(check('Bom dia a todos', 'Bom dia a todos', 'pt', 'pt-BR')).toBeUndefined();
    });

    it('does not judge unchanged output when the source language is unknown', () => {
      expect(check('Guten Morgen zusammen', 'Guten Morgen zusammen', 'auto', 'de')).toBeUndefined();
    });
  });

  describe('runaway output', () => {
    it('rejects a word repeated in a loop', () => {
      const reason = check('Hello', `Hallo ${'Hallo '.repeat(20)}`);
      expect(reason).toBe('repetition loop ("Hallo " repeated 21 times)');
    });

    it('rejects a phrase repeated in a loop', () => {
      const output = `Ich bin ${'ein Roboter und '.repeat(8)}fertig.`;
      expect(check('I am a robot and done.', output)).toMatch(/^repetition loop/);
    });

    it('rejects a CJK character loop', () => {
      expect(check('Thank you', '谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢谢', 'en', 'zh-CN')).toMatch(
        /^repetition loop \("谢" repeated 25 times\)$/,
      );
    });

    it('accepts repetition that the input has too', () => {
      expect(check('哈哈哈哈哈哈哈哈哈哈哈哈', 'hahahahahahahahahahahaha', 'zh-CN', 'en')).toBeUndefined();
      const rule = '-'.repeat(40);
      expect(check(`Title\n${rule}\nText`, `Titel\n${rule}\nText`)).toBeUndefined();
    });

    it('accepts short emphasis and indentation', () => {
      expect(check('Wow!!!!!! Nice', 'Wow!!!!!! Schön')).toBeUndefined();
      expect(
        check('a\n                            b c', 'x\n                            y z'),
      ).toBeUndefined();
    });

    it('rejects output far longer than the input even without a clean loop', () => {
      const output = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
      expect(check('Short input.', output)).toMatch(/^output \d+ times longer than input$/);
    });

    it('accepts the usual expansion from CJK to Latin script', () => {
      expect(check('中华人民共和国', "People's Republic of China", 'zh-CN', 'en')).toBeUndefined();
    });
  });
});

describe('longestRepeat', () => {
  it('finds the most repeated unit and how often it repeats', () => {
    expect(longestRepeat('xx abcabcabcabc yy', 0)).toEqual({ unit: 'abc', count: 4 });
  });

  it('ignores repetitions shorter than the minimum length and whitespace-only units', () => {
    expect(longestRepeat('abab', 5)).toBeUndefined();
    expect(longestRepeat('a          b', 0)).toBeUndefined();
  });

  it('counts code points, so astral characters repeat as whole units', () => {
    expect(longestRepeat('😀😀😀😀', 0)).toEqual({ unit: '😀', count: 4 });
  });
});
