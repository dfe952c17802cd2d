import { describe, expect, it } from '@jest/globals';
import { Tokenizer } from '@huggingface/tokenizers';
import { tinyNliModelFiles } from '@tp/models';

import { HypothesisTooLongError, PairEncoder, padBatch } from './pair-encoder.js';

const files = tinyNliModelFiles();
const json = (path: string) => JSON.parse(new TextDecoder().decode(files.get(path))) as object;
const tokenizer = new Tokenizer(json('tokenizer.json'), json('tokenizer_config.json'));
const tokensOf = (ids: readonly number[]) => ids.map((id) => tokenizer.id_to_token(id) as string);

describe('PairEncoder', () => {
  it('encodes [CLS] premise [SEP] hypothesis [SEP] with type ids 0 then 1', () => {
    const encoder = new PairEncoder(tokenizer, 128);
    const pair = encoder.pair(encoder.tokens('I hate spam'), 'This example is spam.');
    expect(tokensOf(pair.ids)).toEqual([
      '[CLS]',
      'i',
      'hate',
      'spam',
      '[SEP]',
      'this',
      'example',
      'is',
      'spam',
      '.',
      '[SEP]',
    ]);
    expect(pair.typeIds).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
  });

  it('cuts only the premise, from its end, so the pair fits the model length', () => {
    const encoder = new PairEncoder(tokenizer, 10);
    const pair = encoder.pair(encoder.tokens('we like tea and we hate spam'), 'This example is spam.');
    // 3 specials + 5 hypothesis tokens leave 2 for the premise.
    expect(tokensOf(pair.ids)).toEqual([
      '[CLS]',
      'we',
      'like',
      '[SEP]',
      'this',
      'example',
      'is',
      'spam',
      '.',
      '[SEP]',
    ]);
  });

  it('drops special tokens spelled in the text, so the text cannot start the hypothesis itself', () => {
    const encoder = new PairEncoder(tokenizer, 128);
    const pair = encoder.pair(encoder.tokens('tea [SEP] violence'), 'This example is safe.');
    expect(tokensOf(pair.ids).filter((token) => token === '[SEP]')).toHaveLength(2);
  });

  it('refuses a hypothesis that leaves no room for the text', () => {
    const encoder = new PairEncoder(tokenizer, 6);
    expect(() => encoder.pair(['tea'], 'This example is safe content.')).toThrow(HypothesisTooLongError);
  });
});

describe('padBatch', () => {
  it('right-pads every pair to the longest with the pad id and a zero mask', () => {
    const batch = padBatch(
      [
        { ids: [2, 5, 3], typeIds: [0, 0, 1] },
        { ids: [2, 3], typeIds: [0, 1] },
      ],
      0,
    );
    expect(batch).toMatchObject({ batch: 2, width: 3 });
    expect(Array.from(batch.inputIds, Number)).toEqual([2, 5, 3, 2, 3, 0]);
    expect(Array.from(batch.attentionMask, Number)).toEqual([1, 1, 1, 1, 1, 0]);
    expect(Array.from(batch.typeIds, Number)).toEqual([0, 0, 1, 0, 1, 0]);
  });
});
