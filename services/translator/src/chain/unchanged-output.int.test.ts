import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { apertiumServing, type ServingApertium } from '@tp/test/harness/apertium-serving';

import { createApertiumEngine } from '../engines/apertium/apertium.engine.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { createChain, type ChainOptions, type TranslationChain } from './chain.js';
import { UNCHANGED } from './output-checks.js';

// Close languages share sentences: the real Apertium answers these UI strings (from Debian's own
// gettext catalogues) exactly as they came, knowing every word. Such an answer is the translation;
// an answer identical to text Apertium could not read is still a failure.
const options: ChainOptions = { resilience: { maxRetries: 0, timeoutMs: 30_000, breakerThreshold: 100 } };

async function apertiumChain(url: string): Promise<TranslationChain> {
  const chain = createChain({ apertium: createApertiumEngine({ baseUrl: url }), options });
  await chain.directory.refresh(true);
  return chain;
}

function expectUnchangedFailure(error: unknown) {
  expect(error).toBeInstanceOf(AllEnginesFailedError);
  const attempts = (error as AllEnginesFailedError).attempts.filter(({ outcome }) => outcome !== 'skipped');
  expect(attempts).toEqual([
    expect.objectContaining({ slot: 'apertium', outcome: 'failed', reason: UNCHANGED }),
  ]);
}

describe('an answer identical to its input, with the real Apertium', () => {
  let apertium: ServingApertium;
  let catalan: ServingApertium;
  const chains: Record<string, TranslationChain> = {};

  beforeAll(async () => {
    apertium = await apertiumServing('spa|por', 'es-pt');
    catalan = await apertiumServing('spa|cat', 'spa-cat');
    chains.shared = await apertiumChain(apertium.url);
    chains.catalan = await apertiumChain(catalan.url);
  }, 120_000);
  afterAll(() => Promise.all([apertium?.close(), catalan?.close()]));

  it.each([
    ['es', 'pt', 'Usar página completa', 'shared'],
    ['es', 'pt', 'Etiqueta de cancelar', 'shared'],
    ['pt', 'es', 'Tipo de papel', 'shared'],
    ['pt', 'es', 'a ignorar valor alternativo', 'shared'],
    ['es', 'ca', 'El valor actual', 'catalan'],
    ['es', 'ca', 'Etiqueta de la solapa', 'catalan'],
  ])('accepts %s -> %s "%s" back as it was: Apertium knew every word', async (source, target, text, apy) => {
    const result = await (chains[apy] as TranslationChain).translate({ text, source, target });

    expect(result).toMatchObject({ text, engine: 'apertium', unknownWords: 0 });
  });

  it('translates en -> pt through es, whose answer Portuguese keeps as it is but for one unknown word', async () => {
    const chain = chains.shared as TranslationChain;

    const result = await chain.translate({
      text: 'Disable saving files to disk',
      source: 'en',
      target: 'pt',
    });

    expect(result.text).toBe('Inutiliza salvar limas a disco');
    expect(result.route.map(({ source, target }) => `${source}>${target}`)).toEqual(['en>es', 'es>pt']);
  });

  it.each([
    ['pt', 'es', 'Petite Capitals From Capitals', 'shared'],
    ['es', 'pt', 'valor incomprensible para --palette', 'shared'],
    ['es', 'ca', 'Backslash Xyzzy frobnicator', 'catalan'],
  ])(
    'still fails %s -> %s "%s": Apertium did not know half of its words',
    async (source, target, text, apy) => {
      const chain = chains[apy] as TranslationChain;

      expectUnchangedFailure(await chain.translate({ text, source, target }).catch((e: unknown) => e));
    },
  );
});
