import { describe, expect, it } from '@jest/globals';

import { segmentText } from './text-format.js';

/** A stand-in engine: words upper-cased, placeholders and references left as they are. */
const shout = (segment: string) =>
  segment.replace(
    /(<[^>]{1,12}>|&[a-z]{2,4};)|([a-z]+)/g,
    (_all, kept: string | undefined, word: string) => kept ?? word.toUpperCase(),
  );

const translateMarkdown = (markdown: string, engine = shout) => {
  const { segments, reassemble } = segmentText(markdown, 'markdown');
  return { segments, markdown: reassemble(segments.map(engine)) };
};

const refusal = (markdown: string) => {
  try {
    segmentText(markdown, 'markdown');
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('Markdown segments', () => {
  it('translates headings, paragraphs and list items, keeping emphasis, links and their targets', () => {
    const { segments, markdown } = translateMarkdown(
      '# Fresh *vegetables*\n\nWe sell **fresh** food, see [our shop](https://shop.example/a_b "Shop").\n\n- one item\n- two ~~items~~\n',
    );

    expect(segments).toEqual([
      'Fresh <t0>vegetables</t0>',
      'We sell <t0>fresh</t0> food, see <t1>our shop</t1>.',
      'one item',
      'two <t0>items</t0>',
    ]);
    expect(markdown).toBe(
      '# FRESH *VEGETABLES*\n\nWE SELL **FRESH** FOOD, SEE [OUR SHOP](https://shop.example/a_b "Shop").\n\n- ONE ITEM\n- TWO ~~ITEMS~~\n',
    );
  });

  it('leaves code spans, code blocks, HTML blocks, autolinks, bare URLs and definitions untouched', () => {
    const source =
      'Run `npm start` or see <https://a.example> and https://b.example now.\n\n' +
      '```sh\nnpm test\n```\n\n    indented code\n\n<div class="x">html block</div>\n\n[ref]: https://c.example\n';

    const { segments, markdown } = translateMarkdown(source);

    expect(segments).toEqual(['Run <t0/> or see <t1/> and <t2/> now.']);
    expect(markdown).toBe(
      source
        .replace('Run', 'RUN')
        .replace(' or see', ' OR SEE')
        .replace(' and', ' AND')
        .replace(' now', ' NOW'),
    );
  });

  it('keeps quote markers and the prefix after a hard break, joining soft line breaks', () => {
    const { segments, markdown } = translateMarkdown('> first line\n> second **line**  \n> after break\n');

    expect(segments).toEqual(['first line second <t0>line</t0><t1/>after break']);
    expect(markdown).toBe('> FIRST LINE SECOND **LINE**\\\n> AFTER BREAK\n');
  });

  it('translates table cells in place, with a pipe in a cell escaped', () => {
    const { segments, markdown } = translateMarkdown(
      '| Name | Note \\| more |\n|---|---|\n| apple | *red* |\n',
    );

    expect(segments).toEqual(['Name', 'Note | more', 'apple', '<t0>red</t0>']);
    expect(markdown).toBe('| NAME | NOTE \\| MORE |\n|---|---|\n| APPLE | *RED* |\n');
  });

  it('escapes what a translation writes that would read as Markdown', () => {
    const engine = (segment: string) =>
      segment === 'plain' ? '1. *not* a_list [x] &lt;b&gt; # & &amp;copy; x|y ~z~' : segment;

    const { markdown } = translateMarkdown('plain\n', engine);

    expect(markdown).toBe('1\\. \\*not\\* a\\_list \\[x\\] \\<b\\> # & \\&copy; x\\|y \\~z\\~\n');
  });

  it('follows the order the translation gives the inline elements', () => {
    const engine = () => 'Me gustan las <t1>verduras</t1> <t0>frescas</t0>';

    const { markdown } = translateMarkdown('I like **fresh** _vegetables_\n', engine);

    expect(markdown).toBe('Me gustan las _verduras_ **frescas**\n');
  });

  it('refuses what would cost markdown-it too much, with a typed error', () => {
    expect(refusal('>'.repeat(100_000))).toMatchObject({
      code: 'MARKUP_TOO_COMPLEX',
      details: { limit: 'nesting' },
    });
    expect(refusal('['.repeat(100_000))).toMatchObject({ details: { limit: 'brackets' } });
    expect(refusal('- x\n'.repeat(10_000))).toMatchObject({ details: { limit: 'lines' } });
    expect(refusal('*a'.repeat(25_000))).toMatchObject({ details: { limit: 'delimiters' } });
    expect(refusal(`${'> '.repeat(50)}deep enough`)).toBeUndefined();
  });
});
