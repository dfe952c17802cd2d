import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';

import { mask, restore, token } from './protected-spans.js';

describe('mask', () => {
  it.each([
    ['Hello {name}, welcome', '{name}'],
    ['Hi {{user.first}}!', '{{user.first}}'],
    ['Total: ${amount} now', '${amount}'],
    ['Item {0} of {1}', '{0}'],
    ['Saved %s files', '%s'],
    ['Saved %d files', '%d'],
    ['Order %1$s is ready', '%1$s'],
    ['Rate %-5.2f today', '%-5.2f'],
    ['Hello %(name)s there', '%(name)s'],
    ['See https://example.com/a?b=1&c=2#x now', 'https://example.com/a?b=1&c=2#x'],
    ['Visit www.example.org today', 'www.example.org'],
    ['Mail info@example.co.uk today', 'info@example.co.uk'],
    [
      'Click <a href="https://x.io/?q=1>2" class=\'btn\'>here',
      '<a href="https://x.io/?q=1>2" class=\'btn\'>',
    ],
    ['A line<br/>break', '<br/>'],
    ['Before <!-- note --> after', '<!-- note -->'],
    ['Fish &amp; chips', '&amp;'],
    ['Copyright &#169; 2024', '&#169;'],
  ])('protects the span in %j', (text, span) => {
    const masked = mask(text);
    expect(masked.spans).toContain(span);
    expect(masked.text).not.toContain(span);
    expect(masked.text).toContain(token(masked.spans.indexOf(span)));
  });

  it('leaves ordinary percentages and prose alone', () => {
    const text = 'Sales rose 50% of the time, a 5%ige Lösung, and 100% sure.';
    expect(mask(text)).toEqual({ text, spans: [] });
  });

  it('gives sentence punctuation after a URL back to the sentence', () => {
    const masked = mask('Read https://example.com/page. Or (see https://example.com/x_(y)).');
    expect(masked.spans).toEqual(['https://example.com/page', 'https://example.com/x_(y)']);
    expect(masked.text).toBe('Read ⟦0⟧. Or (see ⟦1⟧).');
  });

  it('ends a URL or e-mail address where CJK text follows', () => {
    const masked = mask('请访问https://example.com，或写信给support@example.com获取帮助');
    expect(masked.spans).toEqual(['https://example.com', 'support@example.com']);
    expect(masked.text).toBe('请访问⟦0⟧，或写信给⟦1⟧获取帮助');
  });

  it('merges directly adjacent spans into one token', () => {
    const masked = mask('Hello <b>{name}</b>!');
    expect(masked).toEqual({ text: 'Hello ⟦0⟧!', spans: ['<b>{name}</b>'] });
  });

  it('masks brackets of our token form even when they are not a token, so none can form around ours', () => {
    const masked = mask('⟦7〚12〛⟧ and 〛');
    expect(masked).toEqual({ text: '⟦0⟧7⟦1⟧ and ⟦2⟧', spans: ['⟦', '〚12〛⟧', '〛'] });
    expect(restore(masked.text, masked.spans).text).toBe('⟦7〚12〛⟧ and 〛');
  });

  it('masks token-like text already in the input so it cannot be confused with a token', () => {
    const masked = mask('Literal ⟦0⟧ and {x}');
    expect(masked.spans).toEqual(['⟦0⟧', '{x}']);
    expect(restore(masked.text, masked.spans).text).toBe('Literal ⟦0⟧ and {x}');
  });
});

describe('restore', () => {
  const { text: masked, spans } = mask(
    'Dear {name}, see <a href="https://x.io">the page</a> or mail a@b.io.',
  );

  it('puts every span back', () => {
    const result = restore(masked, spans);
    expect(result.text).toBe('Dear {name}, see <a href="https://x.io">the page</a> or mail a@b.io.');
    expect(result).toMatchObject({ lost: [], duplicated: [], unexpected: [], complete: true });
  });

  it('accepts tokens an engine moved, spaced out or wrote with other digits', () => {
    const translated = 'Siehe ⟦ 1 ⟧die Seite⟦２⟧ oder 〚3〛, liebe(r) ⟦٠⟧.';
    const result = restore(translated, spans);
    expect(result.complete).toBe(true);
    expect(result.text).toBe('Siehe <a href="https://x.io">die Seite</a> oder a@b.io, liebe(r) {name}.');
  });

  it('reports a lost span by index', () => {
    const result = restore('Hallo, siehe ⟦1⟧die Seite⟦2⟧ oder ⟦3⟧.', spans);
    expect(result.lost).toEqual([0]);
    expect(result.complete).toBe(false);
  });

  it('reports a duplicated span and restores each copy', () => {
    const result = restore('⟦0⟧ ⟦0⟧ ⟦1⟧x⟦2⟧ ⟦3⟧', spans);
    expect(result.duplicated).toEqual([0]);
    expect(result.text.startsWith('{name} {name} ')).toBe(true);
    expect(result.complete).toBe(false);
  });

  it('reports a token number that was never issued and leaves it as is', () => {
    const result = restore(`${masked} ⟦9⟧`, spans);
    expect(result.unexpected).toEqual(['⟦9⟧']);
    expect(result.text.endsWith(' ⟦9⟧')).toBe(true);
    expect(result.complete).toBe(false);
  });
});

describe('mask and restore properties', () => {
  const fragments = [
    'Hello ',
    'world. ',
    '{name}',
    '{{count}}',
    '%s',
    '%1$d',
    '50% ',
    'https://example.com/a?b=c',
    ' user@example.com ',
    '<b>',
    '</b>',
    '<img src="a.png"/>',
    '⟦0⟧',
    '⟦',
    '⟧',
    '〚12〛',
    '１',
    '7',
    '你好，',
    ' ',
    '\n',
    '😀',
  ];
  const text = fc.oneof(
    fc.array(fc.constantFrom(...fragments), { maxLength: 30 }).map((parts) => parts.join('')),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );

  it('restores the exact input from its own masked text', () => {
    fc.assert(
      fc.property(text, (input) => {
        const masked = mask(input);
        const restored = restore(masked.text, masked.spans);
        expect(restored.text).toBe(input);
        expect(restored.complete).toBe(true);
      }),
    );
  });

  it('leaves nothing maskable outside its tokens', () => {
    fc.assert(
      fc.property(text, (input) => {
        const outsideTokens = mask(input).text.replace(/⟦\d+⟧/gu, ' ');
        expect(mask(outsideTokens).spans).toEqual([]);
      }),
    );
  });

  it('reports exactly the spans whose tokens an engine dropped', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 1000 }), (input, seed) => {
        const masked = mask(input);
        fc.pre(masked.spans.length > 0);
        const dropped = seed % masked.spans.length;
        const result = restore(masked.text.replace(token(dropped), ''), masked.spans);
        expect(result.lost).toEqual([dropped]);
      }),
    );
  });
});
