import { describe, expect, it } from '@jest/globals';

import { callsOverLimit } from './event-loop-block.js';

// The checker the adversarial-input tests rely on: it must name a call whose cost grows with the square
// of the length, and pass a linear one, whatever else the machine is doing.
const TEXT = 'a'.repeat(20_000);

/** The length of the run of `a` from every position: n²/2 character reads. */
function quadratic(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i += 1) {
    let j = i;
    while (j < text.length && text.charCodeAt(j) === 0x61) j += 1;
    total += j - i;
  }
  return total;
}

describe('callsOverLimit', () => {
  it('names a quadratic call at 20,000 characters, with the time it held the thread', async () => {
    const slow = await callsOverLimit(quadratic, [['a*', TEXT]], 50);
    expect(slow).toEqual([expect.stringMatching(/^a\*: \d+ ms \(prose of its length: \d+ ms\)$/)]);
  });

  it('names no linear call', async () => {
    expect(await callsOverLimit((text) => text.includes('b'), [['a*', TEXT]], 50)).toEqual([]);
  });
});
