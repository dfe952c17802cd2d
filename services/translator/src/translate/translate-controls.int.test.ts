import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Glossary } from '@tp/db';
import type { TranslateBatchAnswer, TranslationResult } from '@tp/service-contracts';
import { startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';

import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';

// Per-request controls: formality and context reach DeepL (its double, after ENGINES.md) where it
// takes them and are reported per text as applied or ignored; the real Apertium takes neither; a
// glossary named by id or name must be the pair's.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

describe('formality, context and a named glossary', () => {
  let deepl: DeepLDouble;
  let withDeepL: TestTranslator;
  let withApertium: TestTranslator;

  beforeAll(async () => {
    deepl = await startDeepLDouble();
    [withDeepL, withApertium] = await Promise.all([
      startTestTranslator({
        PRIMARY_ENGINE: 'deepl',
        PRIMARY_ENGINE_KEY: 'test-key:fx',
        PRIMARY_ENGINE_URL: deepl.url,
      }),
      startTestTranslator({ APERTIUM_URL: apertiumUrl, GLOSSARY_REFRESH_MS: '1' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([withDeepL?.close(), withApertium?.close()]);
    await deepl?.close();
  });

  const sentTo = (double: DeepLDouble) =>
    double.requests
      .filter((request) => request.path === '/v2/translate')
      .map((request) => request.body as Record<string, unknown>);

  it('sends formality and context to DeepL into a language with formality, and says both applied', async () => {
    deepl.reset();
    const { status, body } = await withDeepL.translate<TranslationResult>({
      text: 'How are you?',
      source: 'en',
      target: 'de',
      formality: 'more',
      context: 'A letter to a customer.',
    });

    expect(status).toBe(200);
    expect(body).toMatchObject({ engine: 'deepl', controls: { formality: 'applied', context: 'applied' } });
    expect(sentTo(deepl)).toEqual([
      expect.objectContaining({ target_lang: 'DE', formality: 'more', context: 'A letter to a customer.' }),
    ]);
  });

  it('leaves formality out where DeepL has none (its 400), and says so: ignored', async () => {
    deepl.reset();
    const res = await fetch(`${withDeepL.url}/translate/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        texts: ['Guten Morgen', 'Gute Nacht'],
        source: 'de',
        target: 'en',
        formality: 'less',
      }),
    });
    const body = (await res.json()) as TranslateBatchAnswer;

    expect(body.failed).toBe(0);
    expect(body.items).toEqual([
      expect.objectContaining({ controls: { formality: 'ignored' } }),
      expect.objectContaining({ controls: { formality: 'ignored' } }),
    ]);
    const [sent] = sentTo(deepl);
    expect(sent).toMatchObject({ text: ['Guten Morgen', 'Gute Nacht'] });
    expect(sent).not.toHaveProperty('formality');
  });

  it('keeps a formal translation apart from the default one in the cache', async () => {
    const formal = await withDeepL.translate<TranslationResult>({
      text: 'See you tomorrow.',
      source: 'en',
      target: 'fr',
      formality: 'more',
    });
    const plain = await withDeepL.translate<TranslationResult>({
      text: 'See you tomorrow.',
      source: 'en',
      target: 'fr',
    });

    expect(formal.body.cached).toBe(false);
    expect(plain.body.cached).toBe(false);
    expect(plain.body).not.toHaveProperty('controls');
  });

  it('reports formality and context ignored by Apertium, which has neither', async () => {
    const { body } = await withApertium.translate<TranslationResult>({
      text: 'The house is red',
      source: 'en',
      target: 'es',
      formality: 'prefer_less',
      context: 'A real estate listing.',
    });
    expect(body).toMatchObject({
      translatedText: 'La casa es roja',
      engine: 'apertium',
      controls: { formality: 'ignored', context: 'ignored' },
    });
  });

  it("applies a glossary named by id or name when it is the pair's, and refuses another", async () => {
    const id = randomUUID();
    const em = withApertium.orm.em.fork();
    em.create(Glossary, {
      id,
      name: 'brand terms',
      sourceLang: 'en',
      targetLang: 'es',
      entries: [{ source: 'house', target: 'CASA®' }],
      entryCount: 1,
      version: Date.now(),
    });
    await em.flush();

    const byName = await withApertium.translate<TranslationResult>({
      text: 'The house is big.',
      source: 'en',
      target: 'es',
      glossary: 'brand terms',
    });
    const byId = await withApertium.translate<TranslationResult>({
      text: 'The house is big.',
      source: 'en',
      target: 'es',
      glossary: id,
    });
    const otherPair = await withApertium.translate({
      text: 'The house',
      source: 'en',
      target: 'ca',
      glossary: id,
    });
    const unknown = await withApertium.translate({
      text: 'The house',
      source: 'en',
      target: 'es',
      glossary: 'nope',
    });

    expect(byName.body).toMatchObject({
      translatedText: 'El CASA® es grande.',
      controls: { glossary: 'applied' },
    });
    expect(byId.body).toMatchObject({ translatedText: 'El CASA® es grande.', cached: true });
    expect(otherPair.status).toBe(400);
    expect(otherPair.body).toMatchObject({
      error: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'body.glossary' }] },
    });
    expect(unknown.status).toBe(400);
  });
});
