import { describe, expect, it } from '@jest/globals';

import { truncateForMyMemory } from './mymemory.truncate.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('truncateForMyMemory', () => {
  it('leaves text within both limits untouched and unflagged', () => {
    expect(truncateForMyMemory('Good morning')).toEqual({ text: 'Good morning', truncated: false });
  });

  it('ends Chinese text after the last 。 when it lies close to the byte limit', () => {
    const text = '今天下雨了。'.repeat(30); // 180 characters, 540 bytes

    const { text: cut, truncated } = truncateForMyMemory(text);

    expect(truncated).toBe(true);
    expect(cut).toBe('今天下雨了。'.repeat(27));
    expect(bytes(cut)).toBe(486);
  });

  it('cuts hard at the limit when the only boundary is far before it', () => {
    const text = `Short. ${'x'.repeat(600)}`;

    const { text: cut } = truncateForMyMemory(text);

    expect(cut).toBe(text.slice(0, 500));
  });

  it('applies the character limit on its own', () => {
    expect(truncateForMyMemory('abcdef', 100, 3)).toEqual({ text: 'abc', truncated: true });
  });

  it('cuts between code points when a single grapheme is over the limit', () => {
    const text = `e${'\u0301'.repeat(300)}`; // one grapheme of 601 bytes

    const { text: cut, truncated } = truncateForMyMemory(text);

    expect(truncated).toBe(true);
    expect(bytes(cut)).toBe(499);
    expect(text.startsWith(cut)).toBe(true);
  });
});
