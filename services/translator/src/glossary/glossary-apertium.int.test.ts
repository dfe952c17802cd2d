import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Glossary } from '@tp/db';

import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';
import type { TranslationResult } from '../translate/translate-text.js';

// The translator with the real APy (en -> es) and glossaries written to its database as the gateway
// writes them; GLOSSARY_REFRESH_MS=1, so each request sees the table as it is.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

let translator: TestTranslator;
let version = Date.now();

beforeAll(async () => {
  translator = await startTestTranslator({ APERTIUM_URL: apertiumUrl, GLOSSARY_REFRESH_MS: '1' });
});

afterAll(async () => {
  await translator?.close();
});

async function writeGlossary(source: string, target: string, entries: { source: string; target: string }[]) {
  version += 1;
  const em = translator.orm.em.fork();
  const glossary =
    (await em.findOne(Glossary, { sourceLang: source, targetLang: target })) ??
    em.create(Glossary, {
      id: randomUUID(),
      name: 'test',
      sourceLang: source,
      targetLang: target,
      entries,
      entryCount: 0,
      version,
    });
  em.assign(glossary, { entries, entryCount: entries.length, version });
  await em.flush();
}

const translate = (text: string) =>
  translator.translate<TranslationResult>({ text, source: 'en', target: 'es' });

describe('glossaries with the real Apertium', () => {
  it('keeps a brand term out of the engine and puts in the target term', async () => {
    const before = await translate('The green house is big.');
    expect(before.body.translatedText).toBe('La casa verde es grande.');

    await writeGlossary('en', 'es', [
      { source: 'green house', target: 'Green House®' },
      { source: 'big', target: 'enorme' },
    ]);
    const after = await translate('The green house is big.');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ engine: 'apertium', cached: false });
    expect(after.body.translatedText).toBe('El Green House® es enorme.');
  });

  it('applies an edit to the next request, though the text was cached with the glossary before', async () => {
    await writeGlossary('en', 'es', [{ source: 'Acme', target: 'Acme' }]);
    const first = await translate('Acme sells fresh vegetables.');
    expect(first.body.translatedText).toContain('Acme');
    expect((await translate('Acme sells fresh vegetables.')).body.cached).toBe(true);

    await writeGlossary('en', 'es', [{ source: 'Acme', target: 'ACME S.A.' }]);
    const edited = await translate('Acme sells fresh vegetables.');
    expect(edited.body.cached).toBe(false);
    expect(edited.body.translatedText).toBe(first.body.translatedText.replace('Acme', 'ACME S.A.'));
  });

  it('matches whole words only and leaves other pairs alone', async () => {
    await writeGlossary('en', 'es', [{ source: 'house', target: 'HOUSE' }]);
    const partial = await translate('The greenhouse is big.');
    expect(partial.body.translatedText).not.toContain('HOUSE');
    const other = await translator.translate<TranslationResult>({
      text: 'The house.',
      source: 'en',
      target: 'ca',
    });
    expect(other.body.translatedText ?? '').not.toContain('HOUSE');
  });
});
