import { describe, expect, it } from '@jest/globals';
import type { TranslationResult } from '@tp/service-contracts';

import { apertiumTranslator } from '../../test/translator-fixture.js';

// `format: html | markdown` through the translator's routes with the real Apertium (APy, started by
// jest's global setup): a document's segments go through the chain with the other texts of the
// request, and come back in place.
const HTML =
  '<p>The dog is <b>big</b>.</p><p translate="no">The dog is big</p><p>Run <code>npm start</code> now.</p><img src="d.png" alt="A big dog">';
const HTML_ES =
  '<p>El perro es <b>grande</b>.</p><p translate="no">The dog is big</p><p>Carrera <code>npm start</code> ahora.</p><img src="d.png" alt="Un perro grande">';

describe('formats through POST /translate and /translate/batch with the real Apertium', () => {
  const translator = apertiumTranslator();
  const batch = (body: unknown) => translator().batch(body);

  it('translates an HTML document: text, alt, inline tags kept, code and translate="no" untouched', async () => {
    const { status, body } = await translator().translate<TranslationResult>({
      text: HTML,
      source: 'en',
      target: 'es',
      format: 'html',
    });

    expect(status).toBe(200);
    expect(body).toMatchObject({ translatedText: HTML_ES, engine: 'apertium', cached: false });
  });

  it('caches a format apart: the same characters as plain text are translated again', async () => {
    const html = await translator().translate<TranslationResult>({
      text: HTML,
      source: 'en',
      target: 'es',
      format: 'html',
    });
    const plain = await translator().translate<TranslationResult>({ text: HTML, source: 'en', target: 'es' });

    expect(html.body).toMatchObject({ translatedText: HTML_ES, cached: true });
    expect(plain.body.cached).toBe(false);
  });

  it('translates Markdown in a batch, keeping code, link targets and emphasis', async () => {
    const { status, body } = await batch({
      texts: [
        '# Good morning\n\nThe dog is **big**.',
        'See [the house](https://example.com/house) and `npm start`.',
      ],
      source: 'en',
      target: 'es',
      format: 'markdown',
    });

    expect(status).toBe(200);
    expect(body.items).toEqual([
      expect.objectContaining({ translatedText: '# Buenos días\n\nEl perro es **grande**.' }),
      expect.objectContaining({
        translatedText: 'Ve [la casa](https://example.com/house) y `npm start`.',
      }),
    ]);
  });

  it('refuses markup over a limit: 400 for one text, the item alone within a batch', async () => {
    const hostile = '<b>'.repeat(10_001);
    const one = await translator().translate({ text: hostile, source: 'en', target: 'es', format: 'html' });
    const many = await batch({
      texts: ['<p>The house is red</p>', hostile],
      source: 'en',
      target: 'es',
      format: 'html',
    });

    expect(one.status).toBe(400);
    expect(one.body).toMatchObject({ error: 'MARKUP_TOO_COMPLEX', details: { limit: 'elements' } });
    expect(many.status).toBe(200);
    expect(many.body.failed).toBe(1);
    expect(many.body.items).toEqual([
      expect.objectContaining({ translatedText: '<p>La casa es roja</p>' }),
      { error: expect.objectContaining({ error: 'MARKUP_TOO_COMPLEX', code: 40009 }) },
    ]);
  });

  it('answers markup without words as it is, without an engine', async () => {
    const { body } = await translator().translate<TranslationResult>({
      text: '<img src="a.png"><br>',
      source: 'en',
      target: 'es',
      format: 'html',
    });
    expect(body).toMatchObject({ translatedText: '<img src="a.png"><br>', engine: 'none' });
  });

  it('400 VALIDATION_FAILED for a format it does not know', async () => {
    const reply = await translator().translate({ text: 'a', target: 'es', format: 'rtf' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'VALIDATION_FAILED' });
  });
});
