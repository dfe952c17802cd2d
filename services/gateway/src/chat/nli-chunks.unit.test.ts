import { describe, expect, it } from '@jest/globals';

import { nliChunks } from './nli-chunks.js';

describe('nliChunks', () => {
  it('keeps a text within the limit whole', () => {
    expect(nliChunks('short text', 100)).toEqual(['short text']);
  });

  it('cuts a long text into pieces within the limit, at whitespace, covering every word', () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
    const pieces = nliChunks(words.join(' '), 200);
    expect(pieces.every((piece) => piece.length <= 200)).toBe(true);
    expect(pieces.every((piece) => /^\S/.test(piece) && /\s$|word499$/.test(piece))).toBe(true);
    const seen = new Set(pieces.flatMap((piece) => piece.trim().split(/\s+/)));
    expect(words.every((word) => seen.has(word))).toBe(true);
  });

  it('never splits a surrogate pair, even without whitespace', () => {
    const pieces = nliChunks('😀'.repeat(1000), 101);
    expect(pieces.every((piece) => piece.length <= 101 && /^(?:😀)+$/u.test(piece))).toBe(true);
  });

  it('skips blank pieces, which the nli service refuses', () => {
    expect(nliChunks(`a${' '.repeat(500)}b`, 100).every((piece) => piece.trim() !== '')).toBe(true);
  });
});
