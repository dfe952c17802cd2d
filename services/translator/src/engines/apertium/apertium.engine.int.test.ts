import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { never, translateOne } from '@tp/test/doubles/engine-test-kit';
import { field, startRecordingProxy, type HttpDouble } from '@tp/test/doubles/http-double';

import { EngineError, type EngineItem } from '../engine.js';
import { MAX_REQUEST_CHARS } from './apertium.batch.js';
import { createApertiumEngine } from './apertium.engine.js';

// The real APy that jest's global setup started (or APERTIUM_URL), behind a recording pass-through
// so the tests see how many requests a call made. Apertium is deterministic: exact strings.
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

const texts = (items: readonly EngineItem[]) =>
  items.map((item) => (item instanceof EngineError ? `error: ${item.kind}` : item.text));

describe('Apertium engine against the real APy', () => {
  let proxy: HttpDouble;
  const engine = () => createApertiumEngine({ baseUrl: proxy.url });
  const translations = () => proxy.requests.filter((request) => request.path === '/translate');

  beforeAll(async () => {
    proxy = await startRecordingProxy(apertiumUrl);
  });
  afterAll(() => proxy.close());
  beforeEach(() => proxy.reset());

  it('translates several texts in one APy request and splits the answer back exactly', async () => {
    const items = await engine().translate(
      {
        texts: [
          'Good morning',
          'The dog is big',
          'https://example.com/a?b=1',
          '',
          'Xyzzy plugh sells apples',
          'It costs 5 * 3 @home #1 & more',
          'I like <b>fresh</b> vegetables',
        ],
        source: 'en',
        target: 'es',
      },
      never,
    );

    expect(texts(items)).toEqual([
      'Buenos días',
      'El perro es grande',
      'https://example.com/a?b=1',
      '',
      'Xyzzy plugh Vende manzanas',
      ' Cuesta 5 * 3 @casa #1 & más',
      'Me gusta <b>fresco</b> vegetales',
    ]);
    expect(items.map((item) => (item instanceof EngineError ? undefined : item.unknownWords))).toEqual([
      0, 0, 0, 0, 2, 0, 2,
    ]);
    expect(translations()).toHaveLength(1);
    expect(field(translations()[0]?.body, 'langpair')).toBe('eng|spa');
  });

  it('answers a text alone as it answers it among others', async () => {
    const alone = await translateOne(engine(), { text: 'The dog is big', source: 'en', target: 'es' }, never);

    expect(alone).toEqual({ text: 'El perro es grande', truncated: false, unknownWords: 0 });
  });

  it(`keeps every request within ${MAX_REQUEST_CHARS} characters, so APy never drops the end of one`, async () => {
    const sentences = Array.from({ length: 150 }, (_, n) => `The shop number ${n} opens on Monday.`);

    const items = await engine().translate({ texts: sentences, source: 'en', target: 'es' }, never);

    expect(texts(items)).toEqual(sentences.map((_, n) => `El número de tienda ${n} abre el lunes.`));
    expect(translations().length).toBeGreaterThan(1);
    for (const request of translations()) {
      expect([...String(field(request.body, 'q'))].length).toBeLessThanOrEqual(MAX_REQUEST_CHARS);
    }
  });

  it('fails only the text whose character references would not fit in a request', async () => {
    const items = await engine().translate(
      { texts: ['Good morning', '@'.repeat(1500), 'The dog is big'], source: 'en', target: 'es' },
      never,
    );

    expect(texts(items)).toEqual(['Buenos días', 'error: rejected', 'El perro es grande']);
  });

  it('refuses the whole call for a pair APy does not have', async () => {
    const err = await engine()
      .translate({ texts: ['Hola', 'Adiós'], source: 'es', target: 'ja' }, never)
      .catch((e: unknown) => e);

    expect(err).toMatchObject({ engine: 'apertium', kind: 'unsupported' });
    expect(translations()).toHaveLength(0);
  });
});
