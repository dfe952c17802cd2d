import { describe, expect, it } from '@jest/globals';

import { adversarialTexts, callsOverLimit } from '@tp/test/harness/event-loop-block';

import { MarkupTooComplexError } from './markup-error.js';
import { segmentText, type TextFormat } from './text-format.js';

/**
 * Hostile markup costs linear time: no text of the request maximum (50,000 characters) holds the event
 * loop more than 50 ms to cut into segments and put back together, and the hostile shapes of issue 35
 * (100,000 nested tags, 200,000 attributes, unclosed tags), far larger than a request may be, are
 * refused as fast. Timed, so it lives in the integration tier (see callsOverLimit).
 */
const MAX = 50_000;
const LIMIT_MS = 50;

/** Segments and reassembly with the segments as their own translation: the whole work but the engines. */
function roundTrip(format: TextFormat) {
  return (text: string) => {
    try {
      const { segments, reassemble } = segmentText(text, format);
      return reassemble(segments);
    } catch (error) {
      if (error instanceof MarkupTooComplexError) return error.limit;
      throw error;
    }
  };
}

const fill = (unit: string, length = MAX) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const htmlTexts = adversarialTexts(
  MAX,
  [
    '<a href="x" title="y">',
    '<p>',
    '</p>',
    '<!-- c -->',
    '<b><i><u>',
    '&amp;',
    '<table><td>',
    '<img alt="a">',
  ],
  ['<', '>', '"', '&', '=', 'a'],
).concat([
  ['100,000 nested tags', fill('<div>', 500_000)],
  ['100,000 nested inline tags', fill('<b>', 300_000)],
  ['200,000 attributes on one tag', `<p ${fill('a="1" ', 1_200_000)}>x</p>`],
  ['200,000 attributes on many tags', fill('<i a=1 b=2 c=3 d=4>', 1_000_000)],
  ['unclosed tags with text', fill('<b>bold <i>italic <p>para ')],
  ['misnested formatting', fill('<b><i></b></i>x')],
  ['an unclosed comment', `<!--${fill('x')}`],
  ['an unclosed attribute value', `<p title="${fill('x')}`],
  ['nesting just within the limit', `${'<span>'.repeat(500)}${fill('word ', MAX - 3000)}`],
  ['many translatable attributes', fill('<img alt="a cat">')],
]);

const markdownTexts = adversarialTexts(
  MAX,
  [
    '[a](http://x "t")',
    '**',
    '*a',
    '_a',
    '`',
    '> ',
    '- ',
    '1. ',
    '<http://a>',
    '![a](b)',
    '|a|',
    '\\*',
    '&amp;',
  ],
  ['*', '_', '[', ']', '(', '`', '<', '!', '|', '\\', '\n', 'a'],
).concat([
  ['100,000 nested quotes', fill('>', 100_000)],
  ['100,000 nested lists', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i % 400)}- x`).join('\n')],
  ['stars around one letter', `${fill('*', MAX / 2)}a${fill('*', MAX / 2)}`],
  ['a table of 12,000 columns', `${fill('|a', MAX / 2)}\n${fill('|-', MAX / 2)}\n`],
  ['links within the bracket limit', fill('[a](http://x) ', 2000 * 14)],
  ['bare URLs', fill('http://a.b ')],
]);

describe('formats on hostile markup', () => {
  it.each([
    ['html', htmlTexts],
    ['markdown', markdownTexts],
  ] as const)(
    '%s: segments and reassembly hold the event loop at most 50 ms on every hostile text',
    async (format, texts) => {
      expect(await callsOverLimit(roundTrip(format), texts, LIMIT_MS)).toEqual([]);
    },
    // A loaded machine makes calls over the limit by wall time, which are measured again five times.
    240_000,
  );

  it('refuses the oversized hostile shapes with the limit they pass', () => {
    const html = roundTrip('html');
    const markdown = roundTrip('markdown');

    expect(html(fill('<div>', 500_000))).toBe('elements');
    expect(html(`<p ${fill('a="1" ', 1_200_000)}>x</p>`)).toBe('attributes');
    expect(html(fill('<b>bold <i>italic <p>para '))).toBe('nodes');
    expect(markdown(fill('>', 100_000))).toBe('nesting');
    expect(markdown(fill('[', 100_000))).toBe('brackets');
  });
});
