import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import { splitSentences, splitText } from './splitter.js';

/** End offsets of each piece, i.e. the places where the text was cut. */
const cuts = (pieces: string[]): number[] => {
  let offset = 0;
  return pieces.map((piece) => (offset += piece.length));
};

describe('splitSentences', () => {
  it('splits after . ! ? followed by whitespace and keeps the whitespace with the sentence', () => {
    expect(splitSentences('One. Two!  Three? Four')).toEqual(['One. ', 'Two!  ', 'Three? ', 'Four']);
  });

  it('does not split inside numbers or dotted names', () => {
    expect(splitSentences('Pi is 3.14 and a.b.c is a name. Next.')).toEqual([
      'Pi is 3.14 and a.b.c is a name. ',
      'Next.',
    ]);
  });

  it('splits after CJK and full-width marks without a following space', () => {
    expect(splitSentences('你好。今天好吗？很好！是的；好…结束')).toEqual([
      '你好。',
      '今天好吗？',
      '很好！',
      '是的；',
      '好…',
      '结束',
    ]);
  });

  it('keeps closing quotes and brackets with the sentence they end', () => {
    expect(splitSentences('He said "Stop." Then left. 她说：「好。」然后')).toEqual([
      'He said "Stop." ',
      'Then left. ',
      '她说：「好。」',
      '然后',
    ]);
  });

  it('splits on newlines and keeps blank lines with the paragraph before', () => {
    expect(splitSentences('Title\n\nFirst line\nSecond')).toEqual(['Title\n\n', 'First line\n', 'Second']);
  });

  it('treats a run of marks as one ending', () => {
    expect(splitSentences('What?! Really... 真的？！好')).toEqual([
      'What?! ',
      'Really... ',
      '真的？！',
      '好',
    ]);
  });
});

describe('splitText', () => {
  it('returns short text as one chunk and empty text as none', () => {
    expect(splitText('Short text.', 5000)).toEqual(['Short text.']);
    expect(splitText('', 10)).toEqual([]);
  });

  it('packs whole sentences greedily up to the limit', () => {
    expect(splitText('Aaa. Bbb. Ccc. Ddd.', 10)).toEqual(['Aaa. Bbb. ', 'Ccc. Ddd.']);
  });

  it('cuts an over-long sentence at a clause mark rather than mid-word', () => {
    const chunks = splitText('alpha beta gamma, delta epsilon zeta eta', 24);
    expect(chunks).toEqual(['alpha beta gamma, ', 'delta epsilon zeta eta']);
  });

  it('cuts an over-long CJK sentence at a full-width comma', () => {
    const sentence = '这是一个很长的句子，没有句号但是有逗号，还有更多的内容在这里';
    const chunks = splitText(sentence, 12);
    expect(chunks.join('')).toBe(sentence);
    expect(chunks[0]).toBe('这是一个很长的句子，');
    expect(chunks.every((chunk) => chunk.length <= 12)).toBe(true);
  });

  it('cuts at whitespace when a clause mark would leave a tiny first piece', () => {
    const chunks = splitText('a, bbbbbbbb cccccccc dddddddd', 20);
    expect(chunks[0]).toBe('a, bbbbbbbb ');
  });

  it('cuts text without spaces or marks between graphemes, never inside a surrogate pair', () => {
    const text = '😀'.repeat(10); // 20 UTF-16 code units
    const chunks = splitText(text, 5);
    expect(chunks.join('')).toBe(text);
    expect(chunks).toEqual(['😀😀', '😀😀', '😀😀', '😀😀', '😀😀']);
  });

  it('keeps an emoji ZWJ sequence whole when it fits', () => {
    const family = '👨‍👩‍👧'; // 8 code units, one grapheme
    const chunks = splitText(`${family}${family}`, 10);
    expect(chunks).toEqual([family, family]);
  });

  it('falls back to code points inside one grapheme longer than the limit', () => {
    const zalgo = `e${'\u0301'.repeat(9)}`;
    const chunks = splitText(zalgo, 4);
    expect(chunks.join('')).toBe(zalgo);
    expect(chunks.every((chunk) => chunk.length <= 4)).toBe(true);
  });

  it('rejects a limit below 2', () => {
    expect(() => splitText('abc', 1)).toThrow(RangeError);
  });

  it('splits a 12,000-character mixed text into ordered chunks of at most 5000 on sentence ends', () => {
    const paragraph = [
      'The quick brown fox jumps over the lazy dog. ',
      '敏捷的棕色狐狸跳过了懒狗。',
      'Le renard brun rapide saute par-dessus le chien paresseux ! ',
      '素早い茶色の狐が怠け者の犬を飛び越える？',
      'Быстрая коричневая лиса прыгает через ленивую собаку.\n',
    ].join('');
    let text = '';
    for (let i = 0; text.length < 12_000; i += 1) text += `${i}: ${paragraph}`;

    const chunks = splitText(text, 5000);

    expect(text.length).toBeGreaterThanOrEqual(12_000);
    expect(chunks.length).toBe(3);
    expect(chunks.join('')).toBe(text);
    expect(chunks.every((chunk) => chunk.length <= 5000)).toBe(true);
    const sentenceEnds = new Set(cuts(splitSentences(text)));
    expect(cuts(chunks).every((cut) => sentenceEnds.has(cut))).toBe(true);
    expect(chunks[0]?.startsWith('0: The quick')).toBe(true);
  });
});

describe('splitText properties', () => {
  const pieces = [
    'Hello world. ',
    'How are you? ',
    'Fine!\n',
    '\n',
    '你好。',
    '今天天气很好，',
    '我们去公园、',
    'wordwithoutspace',
    ' ',
    ', ',
    '3.14',
    '😀',
    '👨‍👩‍👧',
    'e\u0301',
    '\u3000',
    '؟ ',
    'مرحبا ',
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((parts) => parts.join(''));
  const anyText = fc.oneof(text, fc.string({ unit: 'binary', maxLength: 300 }));
  const limit = fc.integer({ min: 2, max: 80 });

  it('joins back to the input exactly, with non-empty chunks within the limit', () => {
    fc.assert(
      fc.property(anyText, limit, (input, max) => {
        const chunks = splitText(input, max);
        expect(chunks.join('')).toBe(input);
        for (const chunk of chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          expect(chunk.length).toBeLessThanOrEqual(max);
        }
      }),
    );
  });

  it('never separates the halves of a surrogate pair', () => {
    fc.assert(
      fc.property(anyText, limit, (input, max) => {
        for (const chunk of splitText(input, max)) {
          expect(/^[\uDC00-\uDFFF]/.test(chunk)).toBe(false);
          expect(/[\uD800-\uDBFF]$/.test(chunk)).toBe(false);
        }
      }),
    );
  });

  it('cuts only at sentence ends when every sentence fits the limit', () => {
    fc.assert(
      fc.property(text, limit, (input, max) => {
        const sentences = splitSentences(input);
        fc.pre(sentences.every((sentence) => sentence.length <= max));
        const sentenceEnds = new Set(cuts(sentences));
        for (const cut of cuts(splitText(input, max))) expect(sentenceEnds.has(cut)).toBe(true);
      }),
    );
  });

  it('packs greedily: no chunk could have taken the next chunk’s first sentence', () => {
    fc.assert(
      fc.property(text, limit, (input, max) => {
        const sentences = splitSentences(input);
        fc.pre(sentences.every((sentence) => sentence.length <= max));
        const chunks = splitText(input, max);
        chunks.slice(1).forEach((chunk, i) => {
          const first = splitSentences(chunk)[0] ?? '';
          expect((chunks[i] as string).length + first.length).toBeGreaterThan(max);
        });
      }),
    );
  });
});
