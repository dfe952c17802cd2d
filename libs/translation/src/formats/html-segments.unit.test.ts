import { describe, expect, it } from '@jest/globals';
import { parseFragment, serialize } from 'parse5';

import { MarkupTooComplexError } from './markup-error.js';
import { segmentText } from './text-format.js';

/** A stand-in engine: words upper-cased, placeholders and references left as they are. */
const shout = (segment: string) =>
  segment.replace(
    /(<[^>]{1,12}>|&[a-z]{2,4};)|([a-z]+)/g,
    (_all, kept: string | undefined, word: string) => kept ?? word.toUpperCase(),
  );

const translateHtml = (html: string, engine = shout) => {
  const { segments, reassemble } = segmentText(html, 'html');
  return { segments, html: reassemble(segments.map(engine)) };
};

/** Well-formed: parsing the answer again and serializing it changes nothing. */
const wellFormed = (html: string) => serialize(parseFragment(html)) === html;

describe('HTML segments', () => {
  it('translates a block with its inline tags in place, as one segment', () => {
    const { segments, html } = translateHtml(
      '<p>I like <b>fresh</b> <a href="/veg?a=1&amp;b=2">vegetables</a>.</p>',
    );

    expect(segments).toEqual(['I like <t0>fresh</t0> <t1>vegetables</t1>.']);
    expect(html).toBe('<p>I LIKE <b>FRESH</b> <a href="/veg?a=1&amp;b=2">VEGETABLES</a>.</p>');
  });

  it('follows the order the translation gives the inline elements', () => {
    const reorder = () => 'Me gustan las <t1>verduras</t1> <t0>frescas</t0>.';
    const { html } = translateHtml('<p>I like <b>fresh</b> <i>vegetables</i>.</p>', reorder);

    expect(html).toBe('<p>Me gustan las <i>verduras</i> <b>frescas</b>.</p>');
  });

  it('translates alt, title, placeholder and aria-label, and no other attribute', () => {
    const { segments, html } = translateHtml(
      '<p title="Greeting" class="intro" data-x="keep">Hi <img src="cat.png" alt="A cat"></p>' +
        '<input placeholder="Your name" value="keep me"><button aria-label="Close dialog">×</button>',
    );

    expect(segments).toEqual(['Hi <t0/>', 'Your name', 'Close dialog', 'Greeting', 'A cat']);
    expect(html).toBe(
      '<p title="GREETING" class="intro" data-x="keep">HI <img src="cat.png" alt="A CAT"></p>' +
        '<input placeholder="YOUR NAME" value="keep me"><button aria-label="CLOSE DIALOG">×</button>',
    );
  });

  it('leaves translate="no", class notranslate, code, pre, script and style exactly as they are', () => {
    const source =
      '<p>Run <code>npm start</code> now</p><pre>keep  this</pre><p translate="no">Brand Name</p>' +
      '<div class="box notranslate"><p title="Not this">Nor this</p></div>' +
      '<script>var a = "text";</script><style>p { color: red }</style>';

    const { segments, html } = translateHtml(source);

    expect(segments).toEqual(['Run <t0/> now']);
    expect(html).toBe(source.replace('Run', 'RUN').replace('now', 'NOW'));
  });

  it('keeps character references that matter, writes the others as their characters', () => {
    const { segments, html } = translateHtml(
      '<p>Fish &amp; chips &lt;3 caf&eacute;&nbsp;bar &copy; 2024</p>',
    );

    expect(segments).toEqual(['Fish &amp; chips &lt;3 café\u00a0bar © 2024']);
    expect(html).toBe('<p>FISH &amp; CHIPS &lt;3 CAFé&nbsp;BAR © 2024</p>');
  });

  it('answers well-formed HTML for unclosed and stray tags, as a browser reads them', () => {
    const { html } = translateHtml('<p>open <b>bold <i>both</p><li>item</div> tail');

    expect(html).toBe('<p>OPEN <b>BOLD <i>BOTH</i></b></p><li><b><i>ITEM TAIL</i></b></li>');
    expect(wellFormed(html)).toBe(true);
  });

  it('keeps a whole document, translating its title and body', () => {
    const { html } = translateHtml(
      '<!DOCTYPE html><html lang="en"><head><title>My page</title></head><body><h1>Hello there</h1></body></html>',
    );

    expect(html).toBe(
      '<!DOCTYPE html><html lang="en"><head><title>MY PAGE</title></head><body><h1>HELLO THERE</h1></body></html>',
    );
  });

  it('cuts blocks at block elements, even inside an inline one', () => {
    const { segments } = translateHtml('<div>Before <span>in <div>own block</div></span> after</div>');

    expect(segments).toEqual(['Before ', ' after', 'in ', 'own block']);
  });

  it('does not make a segment of whitespace, placeholders or a comment alone', () => {
    const { segments, html } = translateHtml('<p> <br> <!-- note --> </p><p><img src="a.png"></p>');

    expect(segments).toEqual([]);
    expect(html).toBe('<p> <br> <!-- note --> </p><p><img src="a.png"></p>');
  });

  it('puts back an element or atom a translation lost, and drops what it invented or repeated', () => {
    const lossy = () => 'Sin <t5>nada</t5> <t0>negrita</t0> <t0>otra vez</t0> </t9>';
    const { html } = translateHtml('<p>With <b>bold</b> and <br> break</p>', lossy);

    expect(html).toBe('<p>Sin nada <b>negrita</b> otra vez <br></p>');
  });

  it('refuses more elements, attributes or depth than one text may, with a typed error', () => {
    const refused = (html: string) => {
      try {
        segmentText(html, 'html');
      } catch (error) {
        return error;
      }
      return undefined;
    };

    expect(refused('<div>'.repeat(100_000))).toMatchObject({
      code: 'MARKUP_TOO_COMPLEX',
      details: { limit: 'elements' },
    });
    expect(refused(`<p ${'a="1" '.repeat(200_000)}>x</p>`)).toMatchObject({
      details: { limit: 'attributes' },
    });
    expect(refused('<div>'.repeat(600))).toBeInstanceOf(MarkupTooComplexError);
    expect(refused('<div>'.repeat(600))).toMatchObject({
      httpStatus: 400,
      details: { limit: 'depth', max: 512 },
    });
    expect(refused(`${'<div>'.repeat(500)}deep`)).toBeUndefined();
  });
});
