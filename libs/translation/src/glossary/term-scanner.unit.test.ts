import { describe, expect, it } from '@jest/globals';

import { GLOSSARY_LIMITS } from './glossary-entries.js';
import { TermScanner } from './term-scanner.js';

const found = (terms: string[], text: string) =>
  new TermScanner(terms).find(text).map(({ start, end, term }) => [text.slice(start, end), terms[term]]);

describe('TermScanner', () => {
  it('finds whole words only, case-sensitively', () => {
    expect(found(['Acme'], 'Acme sells AcmeCorp, acme and Acme.')).toEqual([
      ['Acme', 'Acme'],
      ['Acme', 'Acme'],
    ]);
    expect(found(['cat'], 'concatenate cats cat')).toEqual([['cat', 'cat']]);
  });

  it('treats digits as part of a word and punctuation or spaces as boundaries', () => {
    expect(found(['v2'], 'v2 v22 (v2) x-v2')).toEqual([
      ['v2', 'v2'],
      ['v2', 'v2'],
      ['v2', 'v2'],
    ]);
  });

  it('prefers the leftmost match, then the longest, and never returns overlapping matches', () => {
    const terms = ['New York', 'York Times', 'New York Times', 'Times'];
    expect(found(terms, 'the New York Times and York Times')).toEqual([
      ['New York Times', 'New York Times'],
      ['York Times', 'York Times'],
    ]);
    expect(found(['a b', 'b c'], 'a b c')).toEqual([['a b', 'a b']]);
  });

  it('falls back to a shorter term when the longer one is not a whole word', () => {
    expect(found(['Acme', 'Acme Pro'], 'Acme Professional')).toEqual([['Acme', 'Acme']]);
  });

  it('handles terms and neighbours outside the BMP and in scripts without spaces', () => {
    expect(found(['Acme'], '这是Acme手机')).toEqual([['Acme', 'Acme']]);
    expect(found(['東京'], '私は東京に')).toEqual([['東京', '東京']]);
    expect(found(['𝒳ray'], 'a 𝒳ray b')).toEqual([['𝒳ray', '𝒳ray']]);
    // 𝒳 (U+1D4B3) is a letter: it glues to the term as a word character would.
    expect(found(['ray'], '𝒳ray')).toEqual([]);
    expect(found(['Café'], 'Café, Cafés')).toEqual([['Café', 'Café']]);
  });

  it('finds terms that start or end with punctuation without asking for a boundary there', () => {
    expect(found(['C++'], 'I like C++.')).toEqual([['C++', 'C++']]);
    expect(found(['.NET'], 'on .NET today')).toEqual([['.NET', '.NET']]);
  });

  it('takes at most n x the longest term steps on adversarial repetitive text', () => {
    const longest = GLOSSARY_LIMITS.maxTermLength;
    // Every term is a near-miss prefix of the text, so each walk goes as deep as it can.
    const terms = Array.from({ length: 50 }, (_, i) => `${'a'.repeat(longest - 1 - i)}b`);
    const text = 'a'.repeat(200_000);
    const scanner = new TermScanner(terms);
    expect(scanner.find(text)).toEqual([]);
    expect(scanner.lastSteps).toBeLessThanOrEqual(text.length * longest);

    const spaced = new TermScanner([`${'a '.repeat(99)}b`]);
    const words = 'a '.repeat(100_000);
    expect(spaced.find(words)).toEqual([]);
    expect(spaced.lastSteps).toBeLessThanOrEqual(words.length * longest);
  });

  it('finds every occurrence in a long text of repeated terms', () => {
    const text = 'Acme '.repeat(50_000);
    const scanner = new TermScanner(['Acme']);
    expect(scanner.find(text)).toHaveLength(50_000);
    expect(scanner.lastSteps).toBeLessThanOrEqual(text.length * 4);
  });
});
