import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import { normalise, normaliseTerm, originalRange } from './normalise.js';

const folded = (text: string) => normalise(text).text;

/** The original substring behind normalised units [start, end). */
function original(text: string, start: number, end: number): string {
  const [from, to] = originalRange(normalise(text), start, end);
  return text.slice(from, to);
}

describe('normalise', () => {
  it('folds case, full-width and mathematical letters to plain lower case', () => {
    expect(folded('HeLLo ＷＯＲＬＤ 𝐟𝐮𝐜𝐤 Ⓕⓤⓒⓚ 🅵🆄🅲🅺')).toBe('hello world fuck fuck fuck');
  });

  it('applies full case folding where toLowerCase stops short', () => {
    expect(folded('STRASSE Straße İstanbul')).toBe('strasse strasse istanbul');
  });

  it('removes zero-width characters, soft hyphens, word joiners, BOMs and bidi controls', () => {
    expect(folded('f\u200bu\u200cc\u200dk \u2060s\u00adh\ufeffi\u202et')).toBe('fuck shit');
  });

  it('composes accents and drops leftover stacked marks (zalgo, strike-through)', () => {
    expect(folded('e\u0301tude')).toBe('étude');
    expect(folded('f\u0336u\u0336c\u0336k\u0336 s\u0300\u0301\u0302hit')).toBe('fuck shit');
  });

  it('drops marks of another script left on Latin, Greek or Cyrillic letters', () => {
    // A Thai vowel sign, a Devanagari vowel sign and a Hebrew point on the letters of a word.
    expect(folded('fuc\u0e31k shi\u093ft a\u05b8ss')).toBe('fuck shit ass');
  });

  it.each([
    // Brahmi sign candrabindu (U+11000) on the k of an ASCII and of a Cyrillic-k word.
    ['a supplementary-plane mark on an ASCII letter', 'fuck\u{11000} fuc\u043a\u{11000}', 'fuck fuck'],
    [
      'marks of another script on digits and symbols read as letters',
      'sh1\u0e31t a$\u0e31s @\u093fss',
      'shit ass ass',
    ],
    [
      'emoji skin-tone modifiers and prepended concatenation marks',
      'fuck\u{1f3fb} \u0600fuck \u{110bd}shit\u{1f3ff} \u{1f44d}\u{1f3fd}',
      'fuck fuck shit \u{1f44d}',
    ],
    ['marks on white space or on no visible character', 'a \u0591b c\u200b\u0e31d \u200c\u05b8e', 'a b cd e'],
  ])('drops %s', (_, text, expected) => {
    expect(folded(text)).toBe(expected);
  });

  it('keeps at most 30 combining marks after a character, the Stream-Safe Text Format limit', () => {
    const text = `\u0e01${'\u0e48'.repeat(10_000)} ok`;
    expect(folded(text)).toBe(`\u0e01${'\u0e48'.repeat(30)} ok`);
    // The dropped marks stay inside the character's original range.
    expect(original(text, 0, 31)).toBe(text.slice(0, 10_001));
  });

  it('reads halfwidth katakana sound marks and Thai sara am as part of the character before them', () => {
    expect(folded('\uff76\uff9e fuck\uff9e fuck\u0e33 \u0e17\u0e33')).toBe(
      '\u30ac fuck fuck\u0e32 \u0e17\u0e4d\u0e32',
    );
  });

  it('keeps Hangul vowel jamo that stand alone', () => {
    // Compatibility jamo ㅠ and ㅗ, which NFKC turns into conjoining vowel jamo.
    expect(folded('\u3160\u3160 \u3157')).toBe('\u1172\u1172 \u1169');
  });

  it('keeps the marks of scripts that write them on their own letters', () => {
    expect(folded('\u0e1e\u0e39\u0e14 \u0928\u092e\u0938\u094d\u0924\u0947')).toBe(
      '\u0e1e\u0e39\u0e14 \u0928\u092e\u0938\u094d\u0924\u0947',
    );
  });

  it('keeps letters whose accents are part of the word', () => {
    expect(folded('coño Ñandú')).toBe('coño ñandú');
  });

  it('reads Cyrillic and Greek look-alikes as Latin letters', () => {
    // Cyrillic с, о, а, е and Greek ο, ι in otherwise Latin words.
    expect(folded('fu\u0441k b\u043e\u043ebs \u0430ss sh\u03b9t c\u03bfck')).toBe('fuck boobs ass shit cock');
  });

  it('reads leetspeak digits and symbols as letters inside words', () => {
    expect(folded('sh1t a55 $hit @ss b1tch 5h!t f4g')).toBe('shit ass shit ass bitch shit fag');
  });

  it('leaves plain numbers and prices alone', () => {
    expect(folded('in 1990 it cost $5 or 3.50')).toBe('in 1990 it cost $5 or 3.50');
  });

  it('treats ! and | after the last letter as punctuation', () => {
    expect(folded('shit! wow!! sh!t')).toBe('shit! wow!! shit');
  });

  it('turns every run of white space and control characters into one space', () => {
    expect(folded('  a \t\n\u00a0\u3000 b\u0007c  ')).toBe('a b c ');
  });

  it('marks which units were digits read as letters', () => {
    const result = normalise('a55 5');
    expect(result.text).toBe('ass 5');
    expect([...result.fromDigit]).toEqual([0, 1, 1, 0, 0]);
  });

  describe('maps every normalised unit back to the original text', () => {
    it('through zero-width characters', () => {
      const text = 'say f\u200bu\u200bck now';
      expect(folded(text)).toBe('say fuck now');
      expect(original(text, 4, 8)).toBe('f\u200bu\u200bck');
    });

    it('through full-width characters and NFKC expansions', () => {
      const text = 'ｆｕｃｋ ㎏';
      expect(folded(text)).toBe('fuck kg');
      expect(original(text, 0, 4)).toBe('ｆｕｃｋ');
      // Both letters of `kg` come from the one character ㎏.
      expect(original(text, 5, 6)).toBe('㎏');
      expect(original(text, 6, 7)).toBe('㎏');
    });

    it('past surrogate pairs', () => {
      const text = '😀😀 𝐚𝐬𝐬 ok';
      expect(folded(text)).toBe('😀😀 ass ok');
      const start = folded(text).indexOf('ass');
      expect(original(text, start, start + 3)).toBe('𝐚𝐬𝐬');
    });

    it('covering a whole character with its combining marks', () => {
      const text = 'e\u0301t';
      expect(folded(text)).toBe('ét');
      expect(original(text, 0, 1)).toBe('e\u0301');
    });

    it('with a collapsed space covering the whole run', () => {
      const text = 'a \t  b';
      expect(original(text, 1, 2)).toBe(' \t  ');
    });

    it('for any text: ranges in order, inside the text, never splitting a surrogate pair', () => {
      const isLow = (s: string, i: number) =>
        i < s.length && s.charCodeAt(i) >= 0xdc00 && s.charCodeAt(i) <= 0xdfff;
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
          const { text: out, starts, ends, fromDigit } = normalise(text);
          expect(starts.length).toBe(out.length);
          expect(ends.length).toBe(out.length);
          expect(fromDigit.length).toBe(out.length);
          for (let i = 0; i < out.length; i++) {
            const start = starts[i] as number;
            const end = ends[i] as number;
            expect(start).toBeGreaterThanOrEqual(0);
            expect(end).toBeLessThanOrEqual(text.length);
            expect(start).toBeLessThan(end);
            if (i > 0) expect(start).toBeGreaterThanOrEqual(starts[i - 1] as number);
            // A low surrogate never starts or ends a range when its high surrogate is right before it.
            const high = (j: number) => j > 0 && /[\ud800-\udbff]/.test(text.charAt(j - 1));
            if (isLow(text, start)) expect(high(start)).toBe(false);
            if (isLow(text, end)) expect(high(end)).toBe(false);
          }
        }),
      );
    });
  });
});

describe('normaliseTerm', () => {
  it('folds a term as texts are folded, without outer spaces', () => {
    expect(normaliseTerm(' Ｆｕｃｋ ')).toBe('fuck');
    expect(normaliseTerm('2 Girls 1 Cup')).toBe('2 girls 1 cup');
  });

  it('is empty for a term of only invisible characters', () => {
    expect(normaliseTerm('\u200b\u200d ')).toBe('');
  });
});
