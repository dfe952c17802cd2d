import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import { SymbolTable } from './symbol-encoding.js';

const isAscii = (text: string) => [...text].every((ch) => ch.charCodeAt(0) < 0x80);

describe('SymbolTable', () => {
  it('spells printable ASCII as itself and other characters of terms as three ASCII characters', () => {
    const table = new SymbolTable();
    expect(table.encodeTerm('ass')).toBe('ass');
    const han = table.encodeTerm('傻逼') as string;
    expect(han).toHaveLength(6);
    expect(isAscii(han)).toBe(true);
    expect(table.encodeTerm('逼傻')).toBe(han.slice(3) + han.slice(0, 3));
  });

  it('writes one filler for a run of characters no term uses, keeping the way back', () => {
    const table = new SymbolTable();
    const term = table.encodeTerm('傻逼') as string;
    const encoded = table.encodeText('你好你好傻逼😀!');
    expect(isAscii(encoded.text)).toBe(true);
    const at = encoded.text.indexOf(term);
    expect(at).toBe(1);
    expect(encoded.positions[at]).toBe(4);
    expect(encoded.positions[at + term.length]).toBe(6);
    expect(encoded.positions[encoded.text.length]).toBe('你好你好傻逼😀!'.length);
  });

  it('finds a term only where the normalised text has it', () => {
    const terms = ['傻逼', 'a傻', '逼b', 'ab', '😀x'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('傻', '逼', 'a', 'b', '😀', 'x', '你'), { maxLength: 12 }),
        (chars) => {
          const table = new SymbolTable();
          const encodedTerms = terms.map((t) => table.encodeTerm(t) as string);
          const text = chars.join('');
          const encoded = table.encodeText(text);
          terms.forEach((term, k) => {
            const spelled = encodedTerms[k] as string;
            const found: number[] = [];
            for (
              let at = encoded.text.indexOf(spelled);
              at !== -1;
              at = encoded.text.indexOf(spelled, at + 1)
            ) {
              found.push(encoded.positions[at] as number);
            }
            const expected: number[] = [];
            for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) expected.push(at);
            expect(found).toEqual(expected);
          });
        },
      ),
    );
  });
});
