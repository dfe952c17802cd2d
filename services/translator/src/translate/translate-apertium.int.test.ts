import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestTranslator, tinyModelsDir, type TestTranslator } from '../../test/translator-fixture.js';
import type { TranslationResult } from './translate-text.js';

// The translator as `npm start` runs it: the real APy that jest's global setup started (with the
// default Debian pairs) and the tiny offline model. Apertium is deterministic: exact strings.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

interface ErrorBody {
  code: number;
  error: string;
  details?: { attempts: { slot: string; engine?: string; outcome: string }[] };
}

/** Successful Apertium calls, from the translator's own per-engine counter. */
const APERTIUM_OK = 'translation_engine_calls_total{engine="apertium",outcome="ok",service="translator"}';

/** The value of one sample of a Prometheus counter, 0 when it has none yet. */
async function counter(translator: TestTranslator, sample: string): Promise<number> {
  const text = await (await fetch(`${translator.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

describe('POST /translate with the real Apertium (APy)', () => {
  let translator: TestTranslator;
  let models: Awaited<ReturnType<typeof tinyModelsDir>>;

  beforeAll(async () => {
    models = await tinyModelsDir();
    translator = await startTestTranslator({ APERTIUM_URL: apertiumUrl, ...models.settings });
  });

  afterAll(async () => {
    await translator?.close();
    await models?.remove();
  });

  const translate = (text: string, source: string, target: string) =>
    translator.translate<TranslationResult>({ text, source, target });

  it('translates a fixed English sentence into Spanish, and says how', async () => {
    const { status, body } = await translate('Good morning, my friend.', 'en', 'es');

    expect(status).toBe(200);
    expect(body).toMatchObject({
      translatedText: 'Buenos días, mi amigo.',
      engine: 'apertium',
      unknownWords: 0,
      route: [{ source: 'en', target: 'es', engine: 'apertium' }],
    });
    expect(body.attempts.map(({ slot, outcome }) => `${slot}:${outcome}`)).toEqual([
      'variant:unsupported',
      'primary:skipped',
      'fallback:skipped',
      'local:skipped',
      'apertium:ok',
    ]);
  });

  it('pivots en -> pt through es, which no installed pair serves directly', async () => {
    const { status, body } = await translate('The vendor sells fresh organic vegetables.', 'en', 'pt');

    expect(status).toBe(200);
    expect(body.translatedText).toBe('O vendedor vende vegetais orgânicos frescos.');
    expect(body.route).toEqual([
      { source: 'en', target: 'es', engine: 'apertium' },
      { source: 'es', target: 'pt', engine: 'apertium' },
    ]);
    const direct = body.attempts.filter((attempt) => attempt.source === undefined);
    expect(direct.find(({ slot }) => slot === 'apertium')).toMatchObject({ outcome: 'unsupported' });
    expect(direct.find(({ slot }) => slot === 'offline')).toMatchObject({ outcome: 'unsupported' });
  });

  it('keeps placeholders, URLs and markup in place', async () => {
    const { body } = await translate(
      'Hello {name}, visit https://example.com/shop and read <b>the news</b> today.',
      'en',
      'es',
    );

    expect(body.translatedText).toBe(
      'Hola {name}, visita https://example.com/shop y leer <b>el noticioso</b> hoy.',
    );
  });

  it('neither stars nor loses an unknown word, and counts it', async () => {
    const { body } = await translate('The Xyzzyplonk sells apples.', 'en', 'es');

    expect(body).toMatchObject({ translatedText: 'El Xyzzyplonk vende manzanas.', unknownWords: 1 });
  });

  it('keeps literal asterisks, at signs and hashes apart from the unknown-word marks', async () => {
    const { body } = await translate('Price: 5 * 3 = 15 @home #1 & <more>', 'en', 'es');

    expect(body).toMatchObject({ translatedText: 'Precio: 5 * 3 = 15 @casa #1 & <more>', unknownWords: 0 });
  });

  it('splits a 20,000-character text into calls and joins the answers in order', async () => {
    const text = 'The shop opens at noon. '.repeat(834);
    expect(text.length).toBeGreaterThan(20_000);
    const before = await counter(translator, APERTIUM_OK);

    const { status, body } = await translate(text, 'en', 'es');

    expect(status).toBe(200);
    expect(body.translatedText).toBe('La tienda abre en mediodía. '.repeat(834));
    const after = await counter(translator, APERTIUM_OK);
    expect(after - before).toBe(1);
  });

  it('answers 400 UNSUPPORTED_LANGUAGE_PAIR for a pair no engine serves, directly or in two hops', async () => {
    const { status, body } = await translator.translate<ErrorBody>({
      text: 'Good morning',
      source: 'en',
      target: 'de',
    });

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40006, error: 'UNSUPPORTED_LANGUAGE_PAIR' });
    expect(body.details?.attempts.map(({ outcome }) => outcome)).toEqual([
      'unsupported',
      'skipped',
      'skipped',
      'skipped',
      'unsupported',
      'unsupported',
    ]);
  });

  it('makes one engine call for 20 identical concurrent requests', async () => {
    const before = await counter(translator, APERTIUM_OK);
    const text = `The market opens at ${Date.now()} on Monday.`;

    const replies = await Promise.all(Array.from({ length: 20 }, () => translate(text, 'en', 'es')));

    expect(new Set(replies.map(({ body }) => body.translatedText)).size).toBe(1);
    expect(replies.every(({ status }) => status === 200)).toBe(true);
    expect((await counter(translator, APERTIUM_OK)) - before).toBe(1);
  });

  it('lists the pairs Apertium serves and the ones it reaches through a pivot', async () => {
    const { body } = await translator.get<{
      pairs: { source: string; target: string; engines: string[]; via?: string }[];
    }>('/pairs?source=en');

    expect(body.pairs).toEqual(
      expect.arrayContaining([
        { source: 'en', target: 'es', engines: ['apertium'] },
        { source: 'en', target: 'ca', engines: ['apertium'] },
        { source: 'en', target: 'gl', engines: ['apertium'] },
        expect.objectContaining({ source: 'en', target: 'pt', engines: [], via: 'es' }),
      ]),
    );
    expect(body.pairs.every((pair) => pair.source === 'en')).toBe(true);
    expect(body.pairs.some((pair) => pair.target === 'de')).toBe(false);
  });
});
