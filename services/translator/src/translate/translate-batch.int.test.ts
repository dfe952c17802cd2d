import { describe, expect, it } from '@jest/globals';

import { apertiumTranslator } from '../../test/translator-fixture.js';

// POST /translate/batch with the real Apertium (APy, started by jest's global setup with the default
// Debian pairs): the texts of one request go through the chain together, each answered in order with
// its own result or error.
describe('POST /translate/batch with the real Apertium', () => {
  const translator = apertiumTranslator();
  const batch = (body: unknown) => translator().batch(body);

  it('answers each text in order, blank ones as they are, and the repeat from the cache', async () => {
    const texts = ['Good morning, my friend.', ' ', 'The house is red', 'https://example.com/a?b=1'];
    const first = await batch({ texts, source: 'en', target: 'es' });

    expect(first.status).toBe(200);
    expect(first.body.failed).toBe(0);
    expect(first.body.items).toEqual([
      expect.objectContaining({
        translatedText: 'Buenos días, mi amigo.',
        engine: 'apertium',
        cached: false,
      }),
      expect.objectContaining({ translatedText: ' ', engine: 'none' }),
      expect.objectContaining({ translatedText: 'La casa es roja', engine: 'apertium' }),
      expect.objectContaining({ translatedText: 'https://example.com/a?b=1' }),
    ]);

    const again = await batch({ texts: ['The house is red', 'The dog is big.'], source: 'en', target: 'es' });
    expect(again.body.items).toEqual([
      expect.objectContaining({ translatedText: 'La casa es roja', cached: true }),
      expect.objectContaining({ translatedText: 'El perro es grande.', cached: false }),
    ]);
  });

  it('gives a text no engine can translate its own error, and the others their translations', async () => {
    const { status, body } = await batch({
      texts: ['Good morning, my friend.', 'おはようございます。今日はいい天気ですね。'],
      source: 'auto',
      target: 'es',
    });

    expect(status).toBe(200);
    expect(body.failed).toBe(1);
    expect(body.items[0]).toMatchObject({ translatedText: 'Buenos días, mi amigo.', detectedSource: 'en' });
    expect(body.items[1]).toMatchObject({
      error: { code: 40006, error: 'UNSUPPORTED_LANGUAGE_PAIR' },
    });
  });

  it.each([
    ['no texts', { texts: [], target: 'es' }, 'body.texts'],
    ['129 texts', { texts: Array(129).fill('a'), target: 'es' }, 'body.texts'],
    ['a text that is not a string', { texts: ['a', 1], target: 'es' }, 'body.texts.1'],
  ])('400 VALIDATION_FAILED for %s', async (_case, body, path) => {
    const reply = await batch(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'VALIDATION_FAILED', details: { issues: [{ path }] } });
  });

  it('413 TEXT_TOO_LONG when the texts together pass the maximum', async () => {
    const max = translator().config.MAX_TEXT_CHARS;
    const half = 'a'.repeat(Math.ceil(max / 2) + 1);
    const reply = await batch({ texts: [half, half], source: 'en', target: 'es' });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ error: 'TEXT_TOO_LONG' });
  });
});
