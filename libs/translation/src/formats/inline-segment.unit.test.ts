import { describe, expect, it } from '@jest/globals';

import { nestSegment, readSegment, SegmentWriter } from './inline-segment.js';

describe('segment text', () => {
  it('writes text escaped and elements and atoms as numbered placeholders', () => {
    const writer = new SegmentWriter();
    writer.write('a < b & ');
    writer.open(0);
    writer.write('c > d');
    writer.close(0);
    writer.atom(1);

    expect(writer.toString()).toBe('a &lt; b &amp; <t0>c &gt; d</t0><t1/>');
    expect(writer.hasWords()).toBe(true);
  });

  it('has no words when only whitespace and placeholders were written', () => {
    const writer = new SegmentWriter();
    writer.write(' \n ');
    writer.atom(0);

    expect(writer.hasWords()).toBe(false);
  });

  it('reads placeholders (spaces inside tolerated) and decodes only its own three references', () => {
    expect(readSegment('x &lt;<t0 >y</t0>&amp;<t12 />&nbsp;<b>')).toEqual([
      { kind: 'text', text: 'x <' },
      { kind: 'open', id: 0 },
      { kind: 'text', text: 'y' },
      { kind: 'close', id: 0 },
      { kind: 'text', text: '&' },
      { kind: 'atom', id: 12 },
      { kind: 'text', text: '&nbsp;<b>' },
    ]);
  });

  it('nests what a translation gives back, forgiving lost, repeated, stray and misnested placeholders', () => {
    const parts = readSegment('<t1>a<t0>b</t1>c</t0></t7><t1>d</t1><t9/>');

    expect(nestSegment(parts, new Set([2, 9]), new Set([0, 1]))).toEqual([
      {
        kind: 'element',
        id: 1,
        children: [
          { kind: 'text', text: 'a' },
          { kind: 'element', id: 0, children: [{ kind: 'text', text: 'b' }] },
        ],
      },
      { kind: 'text', text: 'c' },
      { kind: 'text', text: 'd' },
      { kind: 'atom', id: 9 },
      { kind: 'atom', id: 2 },
    ]);
  });

  it('reads a long run of references and placeholders in linear time', () => {
    const segment = '&amp;<t1/>'.repeat(100_000);
    const parts = readSegment(segment);
    expect(parts).toHaveLength(200_000);
  });
});
