import { describe, expect, it } from '@jest/globals';
import { segmentText, type TextFormat } from '@tp/translation';

import { createApertiumEngine } from '../engines/apertium/apertium.engine.js';
import { createChain } from './chain.js';

// HTML and Markdown through the real Apertium: the segments of a document go in one batch, their
// inline markup as placeholders the chain masks, and the document comes back with it in place.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

const chain = createChain({
  apertium: createApertiumEngine({ baseUrl: apertiumUrl }),
  options: { resilience: { maxRetries: 0, timeoutMs: 30_000 } },
});

async function translateDocument(text: string, format: TextFormat): Promise<string> {
  const { segments, reassemble } = segmentText(text, format);
  const items = await chain.translateBatch({ texts: segments, source: 'en', target: 'es' });
  return reassemble(
    items.map((item) => {
      if (item instanceof Error) throw item;
      return item.text;
    }),
  );
}

describe('documents through the real Apertium', () => {
  it('translates HTML text, alt and title, keeping inline tags, code and translate="no" in place', async () => {
    const html = await translateDocument(
      '<h1>Good morning</h1><p>The dog is <b>big</b> and <a href="/dogs?a=1&amp;b=2" title="More dogs">very happy</a>.</p>' +
        '<p>Run <code>npm start</code> now.</p><p translate="no">The dog is big</p><img src="d.png" alt="A big dog">',
      'html',
    );

    expect(html).toBe(
      '<h1>Buenos días</h1><p>El perro es <b>grande</b> y <a href="/dogs?a=1&amp;b=2" title="Más perros">muy feliz</a>.</p>' +
        '<p>Carrera <code>npm start</code> ahora.</p><p translate="no">The dog is big</p><img src="d.png" alt="Un perro grande">',
    );
  });

  it('translates Markdown, keeping emphasis, links, code and the list', async () => {
    const markdown = await translateDocument(
      '# Good morning\n\nThe dog is **big** and [very happy](https://dogs.example).\n\n- Run `npm start` now.\n- The house is red\n\n```\nThe dog is big\n```\n',
      'markdown',
    );

    expect(markdown).toBe(
      '# Buenos días\n\nEl perro es **grande** y [muy feliz](https://dogs.example).\n\n- Carrera `npm start` ahora.\n- La casa es roja\n\n```\nThe dog is big\n```\n',
    );
  });
});
