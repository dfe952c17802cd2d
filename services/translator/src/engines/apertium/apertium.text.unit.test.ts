import { describe, expect, it } from '@jest/globals';

import { formValue, fromApertiumText, toApertiumText } from './apertium.text.js';

describe('the text sent to APy and read back', () => {
  it('sends literal mark characters and HTML specials as character references', () => {
    expect(toApertiumText('5 * 3 @home #1 & <b>')).toBe('5 &ast; 3 &commat;home &num;1 &amp; &lt;b&gt;');
  });

  it("counts APy's marks (unknown, no dictionary entry, no generated form) and drops them", () => {
    expect(fromApertiumText('El *Xyzzy vende @manzanas y #cosas.')).toEqual({
      text: 'El Xyzzy vende manzanas y cosas.',
      unknownWords: 3,
    });
  });

  it('gives the literal characters back without counting them as marks', () => {
    const sent = toApertiumText('5 * 3 @home #1 & <b>');
    expect(fromApertiumText(sent)).toEqual({ text: '5 * 3 @home #1 & <b>', unknownWords: 0 });
  });

  it('leaves references it did not send as they came', () => {
    expect(fromApertiumText('a &nbsp; b &#42;')).toEqual({ text: 'a &nbsp; b &#42;', unknownWords: 0 });
  });

  it('reads a long run of marks in linear time', () => {
    const marks = '*'.repeat(200_000);
    expect(fromApertiumText(`${marks}word`)).toEqual({ text: 'word', unknownWords: 1 });
  });
});

describe('the form APy is sent', () => {
  const serialiser = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

  it('writes every value as URLSearchParams does: ASCII, spaces, Unicode and lone surrogates', () => {
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('');
    const values = [
      ascii,
      'eng|spa',
      "It's (nearly) ~done! &ast; 50% + 1 = ?",
      'Ünïcödé 漢字 😀\n\ttabs',
      'lone \ud800 high and \udc00 low',
      '',
    ];
    for (const value of values) expect(formValue(value)).toBe(serialiser(value));
  });
});
