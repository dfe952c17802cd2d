import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
import { startGoogleDouble, type GoogleDouble } from '@tp/test/doubles/google.double';
import { field, startRecordingProxy, type HttpDouble } from '@tp/test/doubles/http-double';
import { startLibreTranslateDouble, type LibreTranslateDouble } from '@tp/test/doubles/libretranslate.double';
import { startMyMemoryDouble, type MyMemoryDouble } from '@tp/test/doubles/mymemory.double';

import { createApertiumEngine } from '../engines/apertium/apertium.engine.js';
import { createDeepLEngine } from '../engines/deepl/deepl.engine.js';
import { createGoogleEngine } from '../engines/google/google.engine.js';
import { createLibreTranslateEngine } from '../engines/libretranslate/libretranslate.engine.js';
import { createMyMemoryEngine } from '../engines/mymemory/mymemory.engine.js';
import { createChain, type ChainItem, type ChainOptions } from './chain.js';

// Batches through the real adapters: the online engines' doubles refuse what their APIs refuse (more
// than 50 DeepL texts, 128 Google segments, LibreTranslate's character limit over all texts), and
// Apertium is the real APy behind a recording pass-through.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

const options: ChainOptions = { resilience: { maxRetries: 0, timeoutMs: 30_000, breakerThreshold: 100 } };
const textOf = (item: ChainItem | undefined) => (item instanceof Error ? item.code : item?.text);
const numbered = (count: number, make: (n: number) => string) =>
  Array.from({ length: count }, (_, n) => make(n));

describe('batches through the online engines (doubles)', () => {
  let deepl: DeepLDouble;
  let google: GoogleDouble;
  let libre: LibreTranslateDouble;
  let mymemory: MyMemoryDouble;

  beforeAll(async () => {
    [deepl, google, libre, mymemory] = await Promise.all([
      startDeepLDouble({ authKey: 'k:fx' }),
      startGoogleDouble({ apiKey: 'g' }),
      startLibreTranslateDouble({ charLimit: 100 }),
      startMyMemoryDouble(),
    ]);
  });
  afterAll(() => Promise.all([deepl, google, libre, mymemory].map((double) => double.close())));

  it('sends DeepL 120 texts as calls of at most 50 and answers each in order', async () => {
    const chain = createChain({
      primary: createDeepLEngine({ authKey: 'k:fx', baseUrl: deepl.url }),
      options,
    });
    const texts = numbered(120, (n) => `Sentence number ${n} is here`);

    const items = await chain.translateBatch({ texts, source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual(texts.map((text) => `[DE] ${text}`));
    const sent = deepl.requests.map((request) => (field(request.body, 'text') as string[]).length);
    expect(sent).toEqual([50, 50, 20]);
  });

  it('sends Google at most 128 segments and 5,000 characters a request', async () => {
    const chain = createChain({ primary: createGoogleEngine({ apiKey: 'g', baseUrl: google.url }), options });
    const texts = numbered(300, (n) => `Line ${n} of the catalogue`);

    const items = await chain.translateBatch({ texts, source: 'en', target: 'fr' });

    expect(items.map(textOf)).toEqual(texts.map((text) => `[fr] ${text}`));
    const sent = google.requests.map((request) => field(request.body, 'q') as string[]);
    expect(sent.length).toBeGreaterThan(2);
    for (const q of sent) {
      expect(q.length).toBeLessThanOrEqual(128);
      expect(q.join('').length).toBeLessThanOrEqual(5000);
    }
  });

  it("keeps every LibreTranslate request within the instance's character limit over all its texts", async () => {
    const chain = createChain({
      local: createLibreTranslateEngine({ baseUrl: libre.url, maxChars: 100 }),
      options,
    });
    const texts = numbered(12, (n) => `This is sentence number ${n}.`);

    const items = await chain.translateBatch({ texts, source: 'en', target: 'de' });

    expect(items.map(textOf)).toEqual(texts.map((text) => `[de] ${text}`));
    const posts = libre.requests.filter((request) => request.path === '/translate');
    expect(posts.length).toBeGreaterThan(1);
    for (const post of posts)
      expect((field(post.body, 'q') as string[]).join('').length).toBeLessThanOrEqual(100);
  });

  it('asks MyMemory one text per request', async () => {
    const chain = createChain({ fallback: createMyMemoryEngine({ baseUrl: mymemory.url }), options });

    const items = await chain.translateBatch({
      texts: ['Good morning', 'Thank you'],
      source: 'en',
      target: 'it',
    });

    expect(items.map(textOf)).toEqual(['Buongiorno', 'Grazie']);
    expect(mymemory.requests.map((request) => request.query.q)).toEqual(['Good morning', 'Thank you']);
  });
});

describe('batches through the real Apertium', () => {
  let proxy: HttpDouble;
  beforeAll(async () => {
    proxy = await startRecordingProxy(apertiumUrl);
  });
  afterAll(() => proxy.close());

  const chain = () => createChain({ apertium: createApertiumEngine({ baseUrl: proxy.url }), options });
  const translations = () => proxy.requests.filter((request) => request.path === '/translate');

  it('translates 50 texts in one APy request, each with its own unknown words', async () => {
    proxy.reset();
    const texts = numbered(50, (n) =>
      n === 7 ? 'The Xyzzy shop opens' : `The shop number ${n} opens on Monday`,
    );

    const items = await chain().translateBatch({ texts, source: 'en', target: 'es' });

    expect(items.map(textOf)).toEqual(
      texts.map((_, n) => (n === 7 ? 'El Xyzzy la tienda abre' : `El número de tienda ${n} abre el lunes`)),
    );
    expect(items.map((item) => (item instanceof Error ? undefined : item.unknownWords))).toEqual(
      texts.map((_, n) => (n === 7 ? 1 : 0)),
    );
    expect(translations()).toHaveLength(1);
  });

  it('pivots a batch en -> pt through es in one request per hop', async () => {
    const pivoting = chain();
    await pivoting.directory.refresh(true);
    proxy.reset();

    const items = await pivoting.translateBatch({
      texts: ['The house is red', 'Good morning, my friend.', 'Disable saving files to disk'],
      source: 'en',
      target: 'pt',
    });

    expect(items.map(textOf)).toEqual([
      'A casa é vermelha',
      'Bons dias, meu amigo.',
      'Inutiliza salvar limas a disco',
    ]);
    expect(translations().map((request) => field(request.body, 'langpair'))).toEqual(['eng|spa', 'spa|por']);
  });
});
